import { notifications } from '@mantine/notifications';

/**
 * The end of a long operation: a toast in the window, and a native
 * notification when the window is not focused (Electron's main process via
 * the preload; in a browser, the Notification API if the user allowed it).
 */
export function notifyDone(title: string, message: string, ok = true): void {
  notifications.show({ title, message, color: ok ? 'green' : 'red', autoClose: ok ? 4000 : 10_000 });
  if (document.hasFocus()) return;
  if (window.boxdesk?.notify) window.boxdesk.notify(title, message);
  else if (typeof Notification !== 'undefined' && Notification.permission === 'granted')
    new Notification(title, { body: message });
}
