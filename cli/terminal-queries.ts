/**
 * Removes the questions a program asks its terminal (cursor position `ESC[6n`, status `ESC[5n`,
 * device attributes `ESC[c`/`ESC[>c`, colour queries `ESC]11;?BEL`) from a terminal's output, for
 * when that output goes to a file or a pipe: nothing there answers them, and a shell's line editor
 * (busybox's asks where the cursor is before each prompt) would leave them in the file.
 * A sequence split across chunks is held back until its end arrives.
 */
export class TerminalQueryFilter {
  private held = '';

  /** The chunk without queries; an unfinished escape at its end waits for the next chunk. */
  push(chunk: Buffer): Buffer {
    const text = this.held + chunk.toString('latin1');
    this.held = '';
    let out = '';
    let i = 0;
    while (i < text.length) {
      const esc = text.indexOf('\x1b', i);
      if (esc === -1) {
        out += text.slice(i);
        break;
      }
      out += text.slice(i, esc);
      const end = sequenceEnd(text, esc);
      if (end === null) {
        // Unfinished: wait for the rest (an escape longer than this is no query: let it through).
        if (text.length - esc <= MAX_QUERY) this.held = text.slice(esc);
        else out += text.slice(esc);
        break;
      }
      const sequence = text.slice(esc, end);
      if (!isQuery(sequence)) out += sequence;
      i = end;
    }
    return Buffer.from(out, 'latin1');
  }

  /** What was held back at the end of the output. */
  flush(): Buffer {
    const rest = Buffer.from(this.held, 'latin1');
    this.held = '';
    return rest;
  }
}

const MAX_QUERY = 64;
// eslint-disable-next-line no-control-regex
const CSI_QUERY = /^\x1b\[[?>=]?[0-9;]*[nc]$/;
// eslint-disable-next-line no-control-regex
const OSC_QUERY = /^\x1b\][0-9]+;\?(\x07|\x1b\\)$/;

function isQuery(sequence: string): boolean {
  return CSI_QUERY.test(sequence) || OSC_QUERY.test(sequence);
}

/** Where the escape sequence starting at `start` ends (exclusive), or null when the text stops first. */
function sequenceEnd(text: string, start: number): number | null {
  const kind = text[start + 1];
  if (kind === undefined) return null;
  if (kind === '[') {
    // CSI: parameter and intermediate bytes, then one final byte (0x40-0x7e).
    for (let i = start + 2; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x40 && c <= 0x7e) return i + 1;
      if (c < 0x20 || c > 0x3f) return i; // malformed: pass what came so far
    }
    return null;
  }
  if (kind === ']') {
    // OSC: up to BEL or ESC \.
    for (let i = start + 2; i < text.length; i++) {
      if (text[i] === '\x07') return i + 1;
      if (text[i] === '\x1b') return text[i + 1] === undefined ? null : text[i + 1] === '\\' ? i + 2 : i;
    }
    return null;
  }
  return start + 2;
}
