import { createKeyActions, type KeysDeps } from './key-actions.ts';

/**
 * The operator's key actions (the CLI): any customer's key, found by id or prefix. Never reached from the API
 * or the dashboard, which use the customer's own door (`createKeysService`).
 */
export function createKeysOperator(deps: KeysDeps) {
  const keys = createKeyActions(deps);
  return {
    listKeys: keys.listKeys,
    getKey: (keyId: string) => keys.getKey('any customer', keyId),
    rotateKey: (keyId: string) => keys.rotateKey('any customer', keyId),
    revokeKey: (keyId: string) => keys.revokeKey('any customer', keyId),
    setScopes: (keyId: string, scopes: readonly string[]) => keys.setScopes('any customer', keyId, scopes),
  };
}
