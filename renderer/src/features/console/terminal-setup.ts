import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

export const DARK: ITheme = {
  background: '#1a1b1e',
  foreground: '#e4e6eb',
  cursor: '#e4e6eb',
  selectionBackground: '#4c6ef566',
};
export const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1d2330',
  cursor: '#1d2330',
  selectionBackground: '#4c6ef544',
};

function openLink(_event: MouseEvent, uri: string): void {
  if (/^https?:\/\//i.test(uri)) window.open(uri, '_blank', 'noopener,noreferrer');
}

/** The keystroke-echo bench's hooks (bench/scenarios/ui-echo.ts): output bytes as they arrive, and each render. */
export interface EchoProbe {
  output?(bytes: Uint8Array): void;
  render?(cursorLine: () => string): void;
}

/** An opt-in probe for the keystroke-echo bench; inert unless a page sets it. */
export const probe = () => (window as { __boxdeskProbe?: EchoProbe }).__boxdeskProbe;

/** An xterm.js terminal in `host`: screen-reader mode, links, search, WebGL where it can. */
export function createTerminal(host: HTMLElement) {
  const term = new Terminal({
    screenReaderMode: true,
    cursorBlink: true,
    fontSize: 13,
    scrollback: 5000,
    fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
  });
  const fit = new FitAddon();
  const search = new SearchAddon();
  term.loadAddon(fit);
  term.loadAddon(search);
  term.loadAddon(new WebLinksAddon(openLink));
  term.open(host);
  try {
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => webgl.dispose());
    term.loadAddon(webgl);
  } catch {
    // No WebGL here (no GPU, or a lost context): xterm's DOM renderer draws instead.
  }
  fit.fit();
  term.onRender(() => {
    const buffer = term.buffer.active;
    probe()?.render?.(() => buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '');
  });
  // Ctrl+Shift+C and V copy and paste, as in desktop terminals (Ctrl+C stays the shell's).
  term.attachCustomKeyEventHandler((e) => {
    if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
    if (e.code === 'KeyC') {
      void navigator.clipboard.writeText(term.getSelection());
      return false;
    }
    if (e.code === 'KeyV') {
      void navigator.clipboard.readText().then((t) => term.paste(t));
      return false;
    }
    return true;
  });
  return { term, fit, search };
}

/** Fits the terminal to its host whenever the host's size changes (at most once a frame); returns the undo. */
export function fitOnResize(host: HTMLElement, fit: FitAddon): () => void {
  let frame: number | null = null;
  const observer = new ResizeObserver(() => {
    if (frame !== null) return;
    frame = requestAnimationFrame(() => {
      frame = null;
      if (host.offsetWidth > 0 && host.offsetHeight > 0) fit.fit();
    });
  });
  observer.observe(host);
  return () => {
    observer.disconnect();
    if (frame !== null) cancelAnimationFrame(frame);
  };
}
