import { app, BrowserWindow, dialog, ipcMain, protocol, session, type WebContents } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, pickCoreArgs, resolveConfig, type CoreConfig } from './core/config';
import { startCore, type Core } from './core/core';
import { resolveUiFile, uiContentSecurityPolicy } from './core/ui/static-routes';

const SCHEME = 'app';
const APP_HOST = 'boxdesk';
const APP_URL = `${SCHEME}://${APP_HOST}/`;

// Must happen before `ready`: a standard, secure scheme gets a real origin (app://boxdesk) and fetch.
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);
app.enableSandbox();

/** Serves dist/renderer at app://boxdesk/; unknown paths get index.html, nothing outside the folder is reachable. */
function serveRenderer(uiRoot: string, core: Core): void {
  const origin = new URL(core.url);
  const csp = uiContentSecurityPolicy([origin.origin, `ws://${origin.host}`]);
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('not found', { status: 404 });
    const { file, contentType } = resolveUiFile(uiRoot, url.pathname);
    const body = await fs.promises.readFile(file);
    return new Response(body, { headers: { 'content-type': contentType, 'content-security-policy': csp, 'x-content-type-options': 'nosniff' } });
  });
}

/**
 * The SQLite addon built for this Electron (by `npm start`, see scripts/electron-native.mjs);
 * undefined in a packaged app, whose own addon electron-builder rebuilt.
 */
function electronSqliteBinding(): string | undefined {
  const file = path.join(app.getAppPath(), 'dist', 'native', `electron-${process.versions.electron}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  return fs.existsSync(file) ? file : undefined;
}

function lockDown(contents: WebContents): void {
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event, url) => {
    if (!url.startsWith(APP_URL)) event.preventDefault();
  });
}

function openWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Boxdesk',
    show: false,
    webPreferences: {
      preload: path.join(__dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.once('ready-to-show', () => window.show());
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

  const showWindow = () => {
    window = openWindow();
    window.on('closed', () => (window = null));
  };
  app
    .whenReady()
    .then(async () => {
      session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
      core = await startCore(config, { sqliteBinding: electronSqliteBinding() }).catch((err: Error) => {
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
    core.close().then(
      () => undefined,
      (err: Error) => console.error(`boxdesk: core shutdown failed: ${err.message}`),
    ).finally(() => {
      closed = true;
      app.quit();
    });
  });
}

main();
