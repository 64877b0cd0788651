import type { Logger } from 'pino';
import { createAssistantsService } from './assistants/assistants.service.ts';
import type { Clock } from './clock.ts';
import { createCustomersService } from './customers/customers.service.ts';
import type { Database } from './db/database.ts';
import { createAuthenticator } from './keys/authenticate.ts';
import type { KeyHasher } from './keys/key-hash.ts';
import { createKeysService } from './keys/keys.service.ts';
import type { Signer } from './signer.ts';

export type CoreDeps = {
  db: Database;
  clock: Clock;
  hasher: KeyHasher;
  signer: Signer;
  logger: Logger;
  rotationGraceSeconds: number;
  defaultRateLimit: number;
  defaultKeyRateLimit: number;
};

/** The one domain layer: the HTTP API, the CLI and the dashboard all call these. */
export function createServices(deps: CoreDeps) {
  return {
    customers: createCustomersService(deps),
    keys: createKeysService(deps),
    assistants: createAssistantsService(deps),
    authenticator: createAuthenticator(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
