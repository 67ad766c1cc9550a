/**
 * The platform's notifier through node-notifier: notify-send on Linux (no buttons: the text says how
 * to answer), Notification Center on macOS and toasts on Windows (with Allow once / Reject buttons).
 */
import type { DesktopNotification } from './notification-text.js';
import type { NotificationAction, Notifier } from './notifications.js';

const ALLOW = 'Allow once';
const REJECT = 'Reject';

/** Loaded on first use: a daemon started with --no-desktop never loads it. */
export function nodeNotifier(platform: NodeJS.Platform = process.platform): Notifier {
  const hasButtons = platform === 'darwin' || platform === 'win32';
  let loaded: Promise<typeof import('node-notifier').default> | undefined;
  return {
    async show(notification: DesktopNotification, withButtons: boolean): Promise<NotificationAction | undefined> {
      loaded ??= import('node-notifier').then((m) => m.default);
      const notifier = await loaded;
      const buttons = withButtons && hasButtons;
      return new Promise((resolve, reject) => {
        notifier.notify({
          title: notification.title,
          message: notification.body,
          urgency: notification.urgency,
          'app-name': 'acp-broker',
          ...(buttons ? { actions: [ALLOW, REJECT], wait: true, timeout: false } : {}),
        }, (error, response, metadata) => {
          // notify-send reports its stderr as the "error"; only a real Error means nothing was shown.
          if (error instanceof Error) { reject(error); return; }
          // macOS reports the button in metadata.activationValue; Windows as the (lowercased) response.
          const value = metadata?.activationValue ?? response;
          const pressed = typeof value === 'string' ? value.toLowerCase().trim() : '';
          resolve(pressed === ALLOW.toLowerCase() ? 'allow_once' : pressed === REJECT.toLowerCase() ? 'reject_once' : undefined);
        });
      });
    },
  };
}
