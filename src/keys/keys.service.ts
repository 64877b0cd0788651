import type { KeyMode } from '../db/index.ts';
import { createKeyActions, type KeyOwner, type KeysDeps } from './key-actions.ts';
import * as repo from './keys.repository.ts';

/** A customer's keys: every method takes the customer and refuses (not found) a key of another. */
export function createKeysService(deps: KeysDeps) {
  const keys = createKeyActions(deps);
  const own = (customerId: string): KeyOwner => ({ customerId });
  return {
    createKey: keys.createKey,
    newKeyDefaults: keys.newKeyDefaults,
    /** The customer's keys, of one mode when given (the dashboard's live or test view). */
    listKeys: (customerId: string, mode?: KeyMode) =>
      keys.listKeys({ customerId, ...(mode ? { mode } : {}) }),
    getKey: (customerId: string, keyId: string) => keys.getKey(own(customerId), keyId),
    rotateKey: (customerId: string, keyId: string) => keys.rotateKey(own(customerId), keyId),
    revokeKey: (customerId: string, keyId: string) => keys.revokeKey(own(customerId), keyId),
    setScopes: (customerId: string, keyId: string, scopes: readonly string[]) =>
      keys.setScopes(own(customerId), keyId, scopes),
    /** When each of the customer's keys in a rotation grace period stops accepting its previous value. */
    graceEnds: (customerId: string) => repo.graceEnds(deps.db, customerId, deps.clock.now()),
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
