import type { Notifications } from '../db/notifications.ts';

/**
 * Resolves with the next payload heard on `api_keys_changed` (after the listeners registered before it ran): an
 * instance that did not make a change follows it once it hears it, which a test must wait for.
 */
export function nextKeyChange(notifications: Notifications): Promise<string> {
  return new Promise((resolve) => {
    const stop = notifications.listen('api_keys_changed', (payload) => {
      stop();
      resolve(payload);
    });
  });
}
