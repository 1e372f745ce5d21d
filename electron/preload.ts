import { contextBridge, ipcRenderer } from 'electron';

/**
 * A sandboxed preload: it may require only `electron`, so the main process
 * hands over the core's URL and token synchronously before the page runs.
 * The page gets these two strings and one function (a native notification),
 * and nothing else of Node or IPC.
 */
const config: unknown = ipcRenderer.sendSync('boxdesk:config');
const { apiUrl, token } = (config ?? {}) as { apiUrl?: unknown; token?: unknown };

contextBridge.exposeInMainWorld(
  'boxdesk',
  Object.freeze({
    apiUrl: typeof apiUrl === 'string' ? apiUrl : '',
    token: typeof token === 'string' ? token : null,
    notify: (title: unknown, body: unknown) =>
      ipcRenderer.send('boxdesk:notify', { title: String(title), body: String(body) }),
  }),
);
