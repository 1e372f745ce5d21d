import { screen, type BrowserWindow, type Rectangle } from 'electron';
import fs from 'node:fs';
import path from 'node:path';

export interface WindowState {
  bounds: Rectangle;
  maximized: boolean;
}

const DEFAULT: WindowState = { bounds: { x: -1, y: -1, width: 1200, height: 800 }, maximized: false };

function isRect(v: unknown): v is Rectangle {
  const r = v as Record<string, unknown> | null;
  return !!r && ['x', 'y', 'width', 'height'].every((k) => Number.isInteger(r[k]));
}

/** The size and place the window had last time (window-state.json in userData), if still on a screen. */
export function loadWindowState(dir: string): WindowState {
  try {
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'window-state.json'), 'utf8')) as Partial<WindowState>;
    if (!isRect(saved.bounds) || saved.bounds.width < 400 || saved.bounds.height < 300) return DEFAULT;
    const area = screen.getDisplayMatching(saved.bounds).workArea;
    const visible =
      saved.bounds.x < area.x + area.width - 50 &&
      saved.bounds.y < area.y + area.height - 50 &&
      saved.bounds.x + saved.bounds.width > area.x + 50 &&
      saved.bounds.y >= area.y - 10;
    return visible
      ? { bounds: saved.bounds, maximized: saved.maximized === true }
      : { ...DEFAULT, bounds: { ...DEFAULT.bounds, width: saved.bounds.width, height: saved.bounds.height } };
  } catch {
    return DEFAULT;
  }
}

/** Keeps window-state.json current as the window moves, resizes and closes. */
export function trackWindowState(window: BrowserWindow, dir: string): void {
  let timer: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(timer);
    if (window.isDestroyed() || window.isMinimized()) return;
    const state: WindowState = {
      bounds: window.isMaximized() ? window.getNormalBounds() : window.getBounds(),
      maximized: window.isMaximized(),
    };
    try {
      fs.writeFileSync(path.join(dir, 'window-state.json'), JSON.stringify(state));
    } catch {
      // Not worth failing over: next time the window opens at the default size.
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('close', save);
}
