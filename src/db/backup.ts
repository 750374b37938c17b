// Backup and restore of a SQLite gateway's data directory (issue 42 §6), safe while the gateway serves. The
// database is copied with SQLite's `VACUUM INTO` from a second connection: a consistent snapshot of every
// committed transaction (WAL mode lets it read beside the gateway's writer), compacted. Then the blob folder:
// blobs are immutable and put before the rows that name them commit, so every blob the snapshot names is
// already on disk when the copy starts. Then the small files (the key pepper, which the stored key digests need;
// the bootstrap credentials file). The backup is a directory; restore copies it into an empty data directory.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'libsql';

const DB_FILE = 'attest.db';
const BLOB_DIR = 'blobs';
/** Small files of the data directory a restored gateway needs (the pepper above all). */
const SIDE_FILES = ['pepper', 'bootstrap.json'];

export interface BackupReport {
  databaseBytes: number;
  blobs: number;
}

/** Back up the data directory `dataDir` into `target` (a new directory; refused if it exists and is not empty). */
export function backupDataDir(dataDir: string, target: string): BackupReport {
  const source = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(source))
    throw new Error(`no SQLite database at ${source} (a PostgreSQL gateway: see docs/deploy.md)`);
  ensureEmptyDir(target);
  const snapshot = path.join(target, DB_FILE);
  const db = new SqliteDatabase(source);
  try {
    db.pragma('busy_timeout = 10000');
    db.prepare('vacuum into ?').run(snapshot);
  } finally {
    db.close();
  }
  fs.chmodSync(snapshot, 0o600);
  const blobs = copyTree(path.join(dataDir, BLOB_DIR), path.join(target, BLOB_DIR));
  for (const name of SIDE_FILES) {
    const from = path.join(dataDir, name);
    if (fs.existsSync(from)) fs.copyFileSync(from, path.join(target, name));
  }
  return { databaseBytes: fs.statSync(snapshot).size, blobs };
}

/** Restore a backup made by backupDataDir into `dataDir`, which must be empty or absent. */
export function restoreDataDir(backup: string, dataDir: string): BackupReport {
  const snapshot = path.join(backup, DB_FILE);
  if (!fs.existsSync(snapshot)) throw new Error(`${backup} holds no ${DB_FILE}: not an attest backup`);
  ensureEmptyDir(dataDir);
  fs.copyFileSync(snapshot, path.join(dataDir, DB_FILE));
  fs.chmodSync(path.join(dataDir, DB_FILE), 0o600);
  const blobs = copyTree(path.join(backup, BLOB_DIR), path.join(dataDir, BLOB_DIR));
  for (const name of SIDE_FILES) {
    const from = path.join(backup, name);
    if (fs.existsSync(from)) {
      fs.copyFileSync(from, path.join(dataDir, name));
      fs.chmodSync(path.join(dataDir, name), 0o600);
    }
  }
  return { databaseBytes: fs.statSync(snapshot).size, blobs };
}

function ensureEmptyDir(dir: string): void {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Copy the finished blob files (not the temp files of a write in flight); answers how many. */
function copyTree(from: string, to: string): number {
  if (!fs.existsSync(from)) return 0;
  let n = 0;
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) n += copyTree(src, dst);
    else if (entry.isFile() && !entry.name.endsWith('.tmp') && !entry.name.startsWith('.health-')) {
      fs.copyFileSync(src, dst);
      n++;
    }
  }
  return n;
}
