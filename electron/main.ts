import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Notification,
  protocol,
  session,
  shell,
  type WebContents,
} from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, pickCoreArgs, resolveConfig, type CoreConfig } from './core/config';
import { startCore, type Core } from './core/core';
import { resolveUiFile, uiContentSecurityPolicy } from './core/ui/static-routes';
import { installAppMenu } from './app-menu';
import { loadWindowState, trackWindowState } from './window-state';
import { WINDOW_DISABLED_FEATURES } from './window-switches';

const SCHEME = 'app';
const APP_HOST = 'boxdesk';
const APP_URL = `${SCHEME}://${APP_HOST}/`;

// Must happen before `ready`: a standard, secure scheme gets a real origin (app://boxdesk) and fetch.
protocol.registerSchemesAsPrivileged([
  { scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } },
]);
app.enableSandbox();
app.commandLine.appendSwitch('disable-features', WINDOW_DISABLED_FEATURES.join(','));

/** Serves dist/renderer at app://boxdesk/; unknown paths get index.html, nothing outside the folder is reachable. */
function serveRenderer(uiRoot: string, core: Core): void {
  const origin = new URL(core.url);
  const csp = uiContentSecurityPolicy([origin.origin, `ws://${origin.host}`]);
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('not found', { status: 404 });
    const { file, contentType } = resolveUiFile(uiRoot, url.pathname);
    const body = await fs.promises.readFile(file);
    return new Response(body, {
      headers: { 'content-type': contentType, 'content-security-policy': csp, 'x-content-type-options': 'nosniff' },
    });
  });
}

function lockDown(contents: WebContents): void {
  // Links (a published box's URL, a link in a terminal) open in the user's browser; nothing else opens.
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(APP_URL)) event.preventDefault();
  });
}

function openWindow(stateDir: string): BrowserWindow {
  const state = loadWindowState(stateDir);
  const window = new BrowserWindow({
    ...(state.bounds.x >= 0 ? { x: state.bounds.x, y: state.bounds.y } : {}),
    width: state.bounds.width,
    height: state.bounds.height,
    minWidth: 720,
    minHeight: 480,
    title: 'Boxdesk',
    show: false,
    webPreferences: {
      preload: path.join(__dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.once('ready-to-show', () => {
    if (state.maximized) window.maximize();
    window.show();
  });
  trackWindowState(window, stateDir);
  void window.loadURL(APP_URL);
  return window;
}

function fail(message: string): void {
  console.error(`boxdesk: ${message}`);
  dialog.showErrorBox('Boxdesk could not start', message);
  app.exit(1);
}

function main(): void {
  let config: CoreConfig;
  try {
    config = resolveConfig(pickCoreArgs(process.argv.slice(1)), process.env);
  } catch (err) {
    fail(err instanceof ConfigError ? err.message : String(err));
    return;
  }
  // One data dir, one app instance: Electron's userData is the core's data dir (the one the
  // CLI and the headless core default to), and Chromium keeps its own files in a subfolder.
  app.setName('Boxdesk');
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  app.setPath('userData', config.dataDir);
  app.setPath('sessionData', path.join(config.dataDir, 'electron'));
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  let core: Core | null = null;
  let window: BrowserWindow | null = null;
  let bridge: { apiUrl: string; token: string } | null = null;

  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('web-contents-created', (_event, contents) => lockDown(contents));
  ipcMain.on('boxdesk:config', (event) => {
    // Only our own window learns the token (its navigation is locked to app://boxdesk/).
    event.returnValue = window !== null && event.sender === window.webContents ? bridge : null;
  });

  // A long operation finished while the user looked elsewhere: a native notification.
  ipcMain.on('boxdesk:notify', (event, message: unknown) => {
    if (!window || event.sender !== window.webContents || window.isFocused() || !Notification.isSupported()) return;
    const { title, body } = (message ?? {}) as { title?: unknown; body?: unknown };
    if (typeof title !== 'string' || typeof body !== 'string') return;
    const note = new Notification({ title: title.slice(0, 200), body: body.slice(0, 1000) });
    note.on('click', () => window?.show());
    note.show();
  });

  const showWindow = () => {
    window = openWindow(config.dataDir);
    window.on('closed', () => (window = null));
  };
  app
    .whenReady()
    .then(async () => {
      // Only the clipboard (copy a token, paste into a console), and only for our own window.
      session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
        callback(
          (permission === 'clipboard-read' || permission === 'clipboard-sanitized-write') &&
            contents.getURL().startsWith(APP_URL),
        ),
      );
      installAppMenu();
      core = await startCore(config).catch((err: Error) => {
        throw new Error(`the core did not start on ${config.host}:${config.port}: ${err.message}`);
      });
      bridge = { apiUrl: core.url, token: fs.readFileSync(path.join(config.dataDir, 'token'), 'utf8').trim() };
      serveRenderer(path.join(app.getAppPath(), 'dist', 'renderer'), core);
      showWindow();
      app.on('activate', () => {
        if (!window) showWindow();
      });
    })
    .catch((err: Error) => fail(err.message));

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Quitting waits for the core to close its sockets, exec sessions and database.
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed || !core) return;
    event.preventDefault();
    core
      .close()
      .then(
        () => undefined,
        (err: Error) => console.error(`boxdesk: core shutdown failed: ${err.message}`),
      )
      .finally(() => {
        closed = true;
        app.quit();
      });
  });
}

main();
