import type { Database } from '../db/index.ts';
import { secretFingerprint } from '../server-secret.ts';
import { readFingerprint, recordFingerprintOnce, replaceFingerprint } from './server-secret.repository.ts';

/** A process whose server secret is not the one its database's keys were made with; the message says what to do. */
export class ServerSecretMismatchError extends Error {}

/**
 * The first process to start on a database records its secret's fingerprint; any later process with another
 * secret is refused, rather than answering 401 to every key and failing every webhook signature. `source` names
 * where this process's secret came from, for the message.
 */
export async function checkServerSecret(db: Database, secret: string, source: string): Promise<void> {
  const fingerprint = secretFingerprint(secret);
  let recorded = await readFingerprint(db);
  if (!recorded) {
    await recordFingerprintOnce(db, fingerprint);
    recorded = await readFingerprint(db);
  }
  if (recorded && recorded.fingerprint !== fingerprint) {
    throw new ServerSecretMismatchError(
      `The server secret of this process (${source}) is not the one this database was set up with (recorded ` +
        `${recorded.recorded_at.toISOString()}): every API key would fail with 401 and no webhook secret could be ` +
        'read. Start it with the SERVER_SECRET the other processes on this database use. If you changed the ' +
        'secret on purpose (re-keying, docs/operator-guide.md "Server secret"), record the new one with ' +
        '`npm run cli -- server-secret adopt`, then reissue the keys.',
    );
  }
}

/** Records `secret` as the database's, whatever was recorded before (re-keying); whether that changed anything. */
export async function adoptServerSecret(
  db: Database,
  secret: string,
  now: Date,
): Promise<'adopted' | 'unchanged'> {
  const fingerprint = secretFingerprint(secret);
  if ((await readFingerprint(db))?.fingerprint === fingerprint) return 'unchanged';
  await replaceFingerprint(db, fingerprint, now);
  return 'adopted';
}
