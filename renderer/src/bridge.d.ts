/** What electron/preload.ts exposes; absent when the page is served by the headless core. */
interface BoxdeskBridge {
  readonly apiUrl: string;
  readonly token: string | null;
  /** A native notification, shown by the main process only while the window is not focused. */
  readonly notify?: (title: string, body: string) => void;
}

interface Window {
  readonly boxdesk?: BoxdeskBridge;
}
