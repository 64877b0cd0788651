import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** SERVER_SECRET when configured; otherwise one generated on first start and kept in the data folder. */
export function loadServerSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'server-secret');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}
