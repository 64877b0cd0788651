import fs from 'node:fs';
import path from 'node:path';

/** The data folder cannot be made private; the message says why and what to do. */
export class DataDirUnsafeError extends Error {}

const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Files and folders this process creates from now on are its user's alone, whatever umask it was started with.
 * PGlite writes new WAL segments and relations all along, through Node's fs, and PostgreSQL creates them with modes
 * of its own that the umask narrows.
 */
export function keepNewFilesPrivate(): void {
  process.umask(0o077);
}

/**
 * Makes `dir` and everything in it private to this process's user: folders 0700, everything else 0600, whatever left them otherwise (a restore by `cp -r` or `tar`, a loose umask,
 * PGlite, which writes a new cluster's files as 0666 and some of PostgreSQL's later ones as 0644 whatever the umask).
 * `dir` may itself be a symbolic link (a folder moved to another disk): what it points to is made private. A folder
 * is made private before what is in it is read, so no other user can change it meanwhile. Stops with
 * `DataDirUnsafeError` at anything that belongs to another user (its modes are not ours to change, and its owner
 * could change the data) or at a symbolic link inside (following it would change the modes of files elsewhere).
 */
export function makePrivate(dir: string): { entries: number; changed: number } {
  const uid = process.getuid?.();
  // No POSIX owners or modes to set (Windows).
  if (uid === undefined) return { entries: 0, changed: 0 };
  const top = fs.statSync(dir);
  if (!top.isDirectory()) throw new DataDirUnsafeError(`The data folder ${dir} (DATA_DIR) is not a folder.`);
  const counts = { entries: 0, changed: 0 };
  const visit = (entry: string, stats: fs.Stats): void => {
    if (stats.uid !== uid) {
      throw new DataDirUnsafeError(
        `${entry} belongs to user ${stats.uid}, not to the user the service runs as (${uid}). Give the data folder ` +
          `and everything in it to that user (chown -R ${uid} ${dir}), or run the service as its owner.`,
      );
    }
    const mode = stats.isDirectory() ? FOLDER_MODE : FILE_MODE;
    counts.entries++;
    if ((stats.mode & 0o7777) !== mode && setMode(entry, mode)) counts.changed++;
    if (!stats.isDirectory()) return;
    for (const name of fs.readdirSync(entry)) {
      const child = path.join(entry, name);
      const childStats = fs.lstatSync(child, { throwIfNoEntry: false });
      // Removed since the folder was read (PGlite is running): nothing left to protect.
      if (!childStats) continue;
      if (childStats.isSymbolicLink()) {
        throw new DataDirUnsafeError(
          `${child} is a symbolic link. The data folder (DATA_DIR) must hold its files itself: replace the link ` +
            'with what it points to.',
        );
      }
      visit(child, childStats);
    }
  };
  visit(dir, top);
  return counts;
}

/** Sets `mode`; false when the entry was removed meanwhile. */
function setMode(entry: string, mode: number): boolean {
  try {
    fs.chmodSync(entry, mode);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
