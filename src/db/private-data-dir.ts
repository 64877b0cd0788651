import fs from 'node:fs';
import path from 'node:path';

/** The data folder cannot be made private; the message says why and what to do. */
export class DataDirUnsafeError extends Error {}

const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;
/** The sticky bit: a folder where many users keep files (/tmp). */
const STICKY = 0o1000;

/**
 * Files and folders this process creates from now on (the certificate, the lock, a new data folder) are its user's
 * alone, whatever umask it was started with. Not PGlite's: its file layer sets the mode PostgreSQL asks for with an
 * explicit chmod, which no umask narrows (0600 for relations and WAL).
 */
export function keepNewFilesPrivate(): void {
  process.umask(0o077);
}

/**
 * Makes the data folder `dir` and the entries named `kept` in it (the files and folders the service keeps there, with
 * everything in them) private to this process's user: folders 0700, everything else 0600, whatever left them
 * otherwise (a restore by `cp -r` or `tar`, a loose umask, PGlite, which writes a new cluster's files as 0666 and some
 * of PostgreSQL's later ones as 0644 whatever the umask). Other entries are left as they are: they are not the
 * service's, and a `DATA_DIR` set by mistake to a folder of other things must not have them all changed. `dir` may
 * itself be a symbolic link (a folder moved to another disk): what it points to is made private. A folder is made
 * private before what is in it is read, so no other user can change it meanwhile.
 *
 * Stops with `DataDirUnsafeError`, before changing anything it names, at a shared folder (the sticky bit, like
 * /tmp), at anything that belongs to another user (its modes are not ours to change, and its owner could change the
 * data) and at a symbolic link among the kept entries (PGlite would write through it; following it would change the
 * modes of files elsewhere).
 */
export function makePrivate(dir: string, kept: readonly string[]): { entries: number; changed: number } {
  const uid = process.getuid?.();
  // No POSIX owners or modes to set (Windows).
  if (uid === undefined) return { entries: 0, changed: 0 };
  const top = fs.statSync(dir);
  if (!top.isDirectory()) throw new DataDirUnsafeError(`The data folder ${dir} (DATA_DIR) is not a folder.`);
  if (top.mode & STICKY) {
    throw new DataDirUnsafeError(
      `The data folder ${dir} (DATA_DIR) is a folder shared by several users (it has the sticky bit, like /tmp): ` +
        "point DATA_DIR at a folder of the service's own, such as a new folder inside it.",
    );
  }
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
    const names = entry === dir ? kept : stats.isDirectory() ? fs.readdirSync(entry) : [];
    for (const name of names) {
      const child = path.join(entry, name);
      const childStats = fs.lstatSync(child, { throwIfNoEntry: false });
      // Not there (yet), or removed since the folder was read (PGlite is running): nothing to protect.
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
