import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {}

/**
 * Holds an exclusive lock on the embedded database folder for the life of the process.
 * Hand-written rather than proper-lockfile: that library judges staleness by mtime, so after a crash
 * a restart would be refused for seconds; here a lock whose owner process is gone is taken over at once.
 * Scope: one machine (the PGlite folder is local by nature).
 */
export function lockDataDir(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'service.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isProcessAlive(owner)) {
        throw new DataDirLockedError(
          `The data folder ${dir} is in use by process ${owner}. Stop that process, or point DATA_DIR elsewhere ` +
            '(two processes on one embedded database would corrupt it; use DATABASE_URL to run several instances).',
        );
      }
      fs.unlinkSync(file); // the owner is gone: a stale lock from a crash
    }
  }
  throw new DataDirLockedError(`Could not lock the data folder ${dir}.`);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
