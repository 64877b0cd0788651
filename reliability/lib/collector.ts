import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where the suite leaves what it measured and every log it captured; the runner reads it all back. */
export const RESULTS_DIR = path.resolve(import.meta.dirname, '..', 'results');
export const LOGS_DIR = path.join(RESULTS_DIR, 'logs');
export const FIGURES_FILE = path.join(RESULTS_DIR, 'figures.ndjson');
export const SECRETS_FILE = path.join(RESULTS_DIR, 'secret-hashes.ndjson');

export type Figure = {
  section: string;
  name: string;
  value: number | string;
  unit?: string;
  /** The bound it was held to, in words (e.g. "= 0", "≤ 7000"). */
  bound?: string;
  ok?: boolean;
};

mkdirSync(LOGS_DIR, { recursive: true });

/** Records one figure for the table and the JSON report (one line per figure; the runner collects them). */
export function figure(f: Figure): void {
  appendFileSync(FIGURES_FILE, `${JSON.stringify({ ...f, at: new Date().toISOString() })}\n`);
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Remembers a secret the suite made (an API key, a webhook secret) by its hash only, so the log scan can
 * tell "a key of ours leaked" without the results folder ever holding a secret itself.
 */
export function rememberSecret(kind: 'api_key' | 'webhook_secret', value: string): void {
  appendFileSync(SECRETS_FILE, `${JSON.stringify({ kind, sha256: sha256(value) })}\n`);
}

export const secretHash = sha256;

let logCounter = 0;

/** A log file of its own for one source (a test app, a child process); returns its path. */
export function logFile(source: string): string {
  logCounter += 1;
  const name = `${process.pid}-${String(logCounter).padStart(3, '0')}-${source.replace(/[^\w.-]+/g, '_')}.log`;
  const file = path.join(LOGS_DIR, name);
  writeFileSync(file, '');
  return file;
}

/** Saves log lines captured in memory (a test app's `t.logs`) for the scan at the end of the run. */
export function saveLogs(source: string, lines: readonly string[]): void {
  writeFileSync(logFile(source), lines.join(''));
}
