import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'node:test';

/**
 * Every entry under `dir` (itself included) that is not private to this process's user: a folder not 0700,
 * anything else not 0600, or another owner. Each as its path from `dir` and its mode in octal.
 */
export function notPrivate(dir: string): string[] {
  const loose: string[] = [];
  const visit = (entry: string) => {
    const stats = fs.lstatSync(entry);
    const wanted = stats.isDirectory() ? 0o700 : 0o600;
    if ((stats.mode & 0o7777) !== wanted || stats.uid !== process.getuid?.()) {
      loose.push(`${path.relative(dir, entry) || '.'} ${(stats.mode & 0o7777).toString(8)}`);
    }
    if (stats.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(dir);
  return loose;
}

/** How many entries are under `dir`, itself included. */
export const entriesUnder = (dir: string): number => 1 + fs.readdirSync(dir, { recursive: true }).length;

/** Runs each test of the calling suite under umask 000, the loosest an operator could start the service with. */
export function underLoosestUmask(): void {
  let umask = 0;
  beforeEach(() => {
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
  });
}
