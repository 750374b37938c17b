// The data dir holds the database, the pepper, bootstrap.json (plaintext first-boot tokens) and blobs: it is
// private to the user running the gateway. The dir (and the dirs below it) are 0700, its files 0600, whatever
// the umask; a dir created earlier with wider modes is narrowed at start-up.
import fs from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and its parents) if missing and makes it 0700. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Creates `file` empty if missing (never truncates) and makes it 0600. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Makes `file` 0600 when it exists. */
export function narrowIfPresent(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
