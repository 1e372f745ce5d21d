import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { blinkWhileActive } from './cursor-blink';

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

let gpuDrawn: boolean | undefined;

/**
 * Whether WebGL here is drawn by a GPU. Where it is not (no GPU, a VM, a remote desktop: Chromium
 * then draws WebGL with SwiftShader on the CPU), xterm's DOM renderer costs far less CPU than its
 * WebGL one (a console flooded with output: about a third less of the whole browser's CPU).
 */
function webglOnGpu(): boolean {
  if (gpuDrawn !== undefined) return gpuDrawn;
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return (gpuDrawn = false);
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = `${gl.getParameter(gl.RENDERER)} ${info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : ''}`;
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return (gpuDrawn = !/swiftshader|llvmpipe|softpipe|software/i.test(renderer));
}

/**
 * An xterm.js terminal in `host`: screen-reader mode, links, search, WebGL where a GPU draws it, a
 * cursor that blinks when its use pauses (cursor-blink.ts). `stopBlinking` goes before the terminal's dispose.
 */
export function createTerminal(host: HTMLElement) {
  const term = new Terminal({
    screenReaderMode: true,
    cursorBlink: false,
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
    if (webglOnGpu()) {
      const webgl = new WebglAddon();
      webgl.onContextLoss(() => webgl.dispose());
      term.loadAddon(webgl);
    }
  } catch {
    // No WebGL here after all (a lost context): xterm's DOM renderer draws instead.
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
  const still = window.matchMedia?.('(prefers-reduced-motion: reduce)');
  return { term, fit, search, stopBlinking: blinkWhileActive(term, () => still?.matches ?? false) };
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
