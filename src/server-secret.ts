import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Where the secret generated for an embedded data folder is kept. */
export const generatedSecretFile = (dataDir: string): string => path.join(dataDir, 'server-secret');

/**
 * SERVER_SECRET when configured; otherwise one generated on first start and kept in the data folder (the embedded
 * database only: config.ts requires SERVER_SECRET with DATABASE_URL).
 */
export function loadServerSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = generatedSecretFile(dataDir);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Tells secrets apart without revealing them: a key derived from the secret for this use alone (the secret box
 * derives its own with another salt), stored by the database to refuse a process with another secret.
 */
export const secretFingerprint = (secret: string): string =>
  Buffer.from(hkdfSync('sha256', secret, 'server-secret-fingerprint', 'v1', 32)).toString('hex');
