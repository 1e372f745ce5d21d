/** What electron/preload.ts exposes; absent when the page is served by the headless core. */
interface BoxdeskBridge {
  readonly apiUrl: string;
  readonly token: string | null;
}

interface Window {
  readonly boxdesk?: BoxdeskBridge;
}
