/**
 * The parser of the memory engine's `sh`: a small subset of POSIX sh, enough
 * for the commands tests and the core's own main process use. Supported:
 * `;` `&` `&&` `||` `|` newlines, `!`, `{ …; }`, `while`/`until`, `if`/`elif`/`else`,
 * single and double quotes, backslash, `$NAME` `${NAME}` `${NAME:-word}`
 * `$1…$9` `$#` `$@` `$*` `$?` `$$` `$!` `$0`, `NAME=value` (alone or before a
 * command), redirections `>` `>>` `<` `N>` `N>&M`, and comments. Anything else
 * (command substitution, arithmetic, `for`, `case`, functions, globs, here
 * documents, subshells) is a syntax error naming what is not supported.
 */
export type WordPart =
  | { kind: 'text'; text: string; quoted: boolean }
  | { kind: 'param'; name: string; quoted: boolean; fallback?: Word; colon?: boolean };
export type Word = WordPart[];

export interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&' | '<&';
  target: Word;
}

export type ShNode =
  | { t: 'simple'; assigns: [string, Word][]; words: Word[]; redirects: Redirect[] }
  | { t: 'list'; items: { node: ShNode; background: boolean }[] }
  | { t: 'andor'; first: ShNode; rest: ['&&' | '||', ShNode][] }
  | { t: 'pipe'; commands: ShNode[] }
  | { t: 'not'; body: ShNode }
  | { t: 'loop'; until: boolean; cond: ShNode; body: ShNode }
  | { t: 'if'; branches: [ShNode, ShNode][]; otherwise: ShNode | null }
  | { t: 'group'; body: ShNode };

type Token = { t: 'word'; word: Word } | { t: 'op'; op: string } | { t: 'redir'; fd: number; op: Redirect['op'] };

export class ShSyntaxError extends Error {}

const unsupported = (what: string) => new ShSyntaxError(`${what} is not supported by the memory engine's sh`);

/** `$…` at `i` (just after the `$`): the part and where the text continues. */
function readParam(src: string, i: number, quoted: boolean): [WordPart, number] {
  const c = src[i] ?? '';
  if (c === '(') throw unsupported(src[i + 1] === '(' ? 'arithmetic $((…))' : 'command substitution $(…)');
  if (/[0-9#?$!@*-]/.test(c)) return [{ kind: 'param', name: c, quoted }, i + 1];
  if (c === '{') {
    const end = src.indexOf('}', i);
    if (end < 0) throw new ShSyntaxError('missing }');
    const body = src.slice(i + 1, end);
    const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9#?$!@*])(?:(:?)-(.*))?$/s.exec(body);
    if (!m) throw unsupported(`\${${body}}`);
    const part: WordPart = { kind: 'param', name: m[1]!, quoted };
    if (m[3] !== undefined) {
      part.fallback = tokenize(m[3]).flatMap((tok) => (tok.t === 'word' ? tok.word : []));
      part.colon = m[2] === ':';
    }
    return [part, end + 1];
  }
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
  if (!m) return [{ kind: 'text', text: '$', quoted }, i];
  return [{ kind: 'param', name: m[0], quoted }, i + m[0].length];
}

/** Reads a double-quoted string starting after its `"`. */
function readDouble(src: string, i: number, parts: WordPart[]): number {
  let text = '';
  const flush = () => {
    if (text) parts.push({ kind: 'text', text, quoted: true });
    text = '';
  };
  for (;;) {
    const c = src[i];
    if (c === undefined) throw new ShSyntaxError('unterminated quoted string');
    if (c === '"') {
      flush();
      if (!parts.length) parts.push({ kind: 'text', text: '', quoted: true });
      return i + 1;
    }
    if (c === '`') throw unsupported('command substitution `…`');
    if (c === '\\' && /[\\"$`\n]/.test(src[i + 1] ?? '')) {
      if (src[i + 1] !== '\n') text += src[i + 1];
      i += 2;
    } else if (c === '$') {
      flush();
      const [part, next] = readParam(src, i + 1, true);
      parts.push(part);
      i = next;
    } else {
      text += c;
      i++;
    }
  }
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let parts: WordPart[] = [];
  let text = '';
  const flushText = () => {
    if (text) parts.push({ kind: 'text', text, quoted: false });
    text = '';
  };
  const endWord = () => {
    flushText();
    if (parts.length) tokens.push({ t: 'word', word: parts });
    parts = [];
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const two = src.slice(i, i + 2);
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '#' && !text && !parts.length) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '\\') {
      if (src[i + 1] !== '\n') text += src[i + 1] ?? '';
      i += 2;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ShSyntaxError('unterminated quoted string');
      flushText();
      parts.push({ kind: 'text', text: src.slice(i + 1, end), quoted: true });
      i = end + 1;
    } else if (c === '"') {
      flushText();
      i = readDouble(src, i + 1, parts);
    } else if (c === '$') {
      flushText();
      const [part, next] = readParam(src, i + 1, false);
      parts.push(part);
      i = next;
    } else if (c === '`') {
      throw unsupported('command substitution `…`');
    } else if (c === '>' || c === '<') {
      const fd = !parts.length && /^\d+$/.test(text) ? Number(text) : null;
      if (fd !== null) text = '';
      endWord();
      const op = (['>>', '>&', '<&'].includes(two) ? two : c) as Redirect['op'];
      if (two === '<<') throw unsupported('here-documents');
      tokens.push({ t: 'redir', fd: fd ?? (c === '<' ? 0 : 1), op });
      i += op.length;
    } else if (['&&', '||', ';;'].includes(two)) {
      endWord();
      if (two === ';;') throw unsupported('case');
      tokens.push({ t: 'op', op: two });
      i += 2;
    } else if (';&|\n()'.includes(c)) {
      endWord();
      if (c === '(' || c === ')') throw unsupported('subshells ( … )');
      tokens.push({ t: 'op', op: c });
      i++;
    } else {
      text += c;
      i++;
    }
  }
  endWord();
  return tokens;
}

const RESERVED = new Set(['while', 'until', 'do', 'done', 'if', 'then', 'elif', 'else', 'fi', '{', '}', '!']);
const UNSUPPORTED_WORDS = new Set(['for', 'case', 'function', 'select']);

/** The reserved word a token is, when it is one (an unquoted literal). */
function keyword(tok: Token | undefined): string | null {
  if (tok?.t !== 'word' || tok.word.length !== 1) return null;
  const part = tok.word[0]!;
  return part.kind === 'text' && !part.quoted && RESERVED.has(part.text) ? part.text : null;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parseScript(): ShNode {
    const list = this.list([]);
    if (this.i < this.tokens.length) throw new ShSyntaxError(`unexpected ${this.describe(this.tokens[this.i])}`);
    return list;
  }

  private describe(tok: Token | undefined): string {
    if (!tok) return 'end of script';
    if (tok.t === 'op') return JSON.stringify(tok.op === '\n' ? 'newline' : tok.op);
    if (tok.t === 'redir') return 'redirection';
    return JSON.stringify(tok.word.map((p) => (p.kind === 'text' ? p.text : `$${p.name}`)).join(''));
  }

  private skipNewlines(): void {
    while (this.peekOp('\n') || this.peekOp(';')) this.i++;
  }

  private peekOp(op: string): boolean {
    const tok = this.tokens[this.i];
    return tok?.t === 'op' && tok.op === op;
  }

  private expectKeyword(word: string): void {
    this.skipNewlines();
    if (keyword(this.tokens[this.i]) !== word)
      throw new ShSyntaxError(`expected "${word}", found ${this.describe(this.tokens[this.i])}`);
    this.i++;
  }

  /** Commands until one of `stops` (a reserved word) or the end. */
  private list(stops: string[]): ShNode {
    const items: { node: ShNode; background: boolean }[] = [];
    for (;;) {
      this.skipNewlines();
      const tok = this.tokens[this.i];
      const kw = keyword(tok);
      if (!tok || (kw && stops.includes(kw))) break;
      const node = this.andOr();
      const background = this.peekOp('&');
      if (background) this.i++;
      items.push({ node, background });
      if (!background && !this.peekOp(';') && !this.peekOp('\n')) break;
    }
    return { t: 'list', items };
  }

  private andOr(): ShNode {
    const first = this.pipeline();
    const rest: ['&&' | '||', ShNode][] = [];
    while (this.peekOp('&&') || this.peekOp('||')) {
      const op = (this.tokens[this.i++] as { op: '&&' | '||' }).op;
      while (this.peekOp('\n')) this.i++;
      rest.push([op, this.pipeline()]);
    }
    return rest.length ? { t: 'andor', first, rest } : first;
  }

  private pipeline(): ShNode {
    const negate = keyword(this.tokens[this.i]) === '!';
    if (negate) this.i++;
    const commands = [this.command()];
    while (this.peekOp('|')) {
      this.i++;
      while (this.peekOp('\n')) this.i++;
      commands.push(this.command());
    }
    const node: ShNode = commands.length > 1 ? { t: 'pipe', commands } : commands[0]!;
    return negate ? { t: 'not', body: node } : node;
  }

  private command(): ShNode {
    const kw = keyword(this.tokens[this.i]);
    if (kw === 'while' || kw === 'until') {
      this.i++;
      const cond = this.list(['do']);
      this.expectKeyword('do');
      const body = this.list(['done']);
      this.expectKeyword('done');
      return { t: 'loop', until: kw === 'until', cond, body };
    }
    if (kw === 'if') return this.ifClause();
    if (kw === '{') {
      this.i++;
      const body = this.list(['}']);
      this.expectKeyword('}');
      return { t: 'group', body };
    }
    if (kw) throw new ShSyntaxError(`unexpected "${kw}"`);
    return this.simple();
  }

  private ifClause(): ShNode {
    this.i++;
    const branches: [ShNode, ShNode][] = [];
    let otherwise: ShNode | null = null;
    for (;;) {
      const cond = this.list(['then']);
      this.expectKeyword('then');
      branches.push([cond, this.list(['elif', 'else', 'fi'])]);
      const kw = keyword(this.tokens[this.i]);
      this.i++;
      if (kw === 'elif') continue;
      if (kw === 'else') {
        otherwise = this.list(['fi']);
        this.expectKeyword('fi');
      } else if (kw !== 'fi') throw new ShSyntaxError('expected "fi"');
      return { t: 'if', branches, otherwise };
    }
  }

  private simple(): ShNode {
    const node = {
      t: 'simple' as const,
      assigns: [] as [string, Word][],
      words: [] as Word[],
      redirects: [] as Redirect[],
    };
    for (;;) {
      const tok = this.tokens[this.i];
      if (tok?.t === 'redir') {
        this.i++;
        const target = this.tokens[this.i++];
        if (target?.t !== 'word')
          throw new ShSyntaxError(`a redirection needs a target, found ${this.describe(target)}`);
        node.redirects.push({ fd: tok.fd, op: tok.op, target: target.word });
      } else if (tok?.t === 'word') {
        const first = tok.word[0];
        const text = first?.kind === 'text' && !first.quoted ? first.text : null;
        const assign = text !== null ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text) : null;
        if (assign && text !== null && node.words.length === 0) {
          const rest: Word = [
            { kind: 'text', text: text.slice(assign[0].length), quoted: false },
            ...tok.word.slice(1),
          ];
          node.assigns.push([assign[1]!, rest]);
        } else {
          if (node.words.length === 0 && text !== null && UNSUPPORTED_WORDS.has(text)) throw unsupported(text);
          node.words.push(tok.word);
        }
        this.i++;
      } else break;
    }
    if (!node.words.length && !node.assigns.length && !node.redirects.length)
      throw new ShSyntaxError(`unexpected ${this.describe(this.tokens[this.i])}`);
    return node;
  }
}

export function parseScript(src: string): ShNode {
  return new Parser(tokenize(src)).parseScript();
}
