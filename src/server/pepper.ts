// The pepper keys every credential digest. It comes from ATTEST_KEY_PEPPER or is generated once into the
// data directory (mode 0600). Replicas sharing a database must share the pepper (set the variable).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, narrowIfPresent } from '../data-dir.js';

export function loadPepper(dataDir: string, fromEnv: string | null): string {
  if (fromEnv) return fromEnv;
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'pepper');
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    narrowIfPresent(file);
    return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const pepper = crypto.randomBytes(32).toString('hex');
  try {
    // 'wx' fails if another process wrote it first; then read theirs.
    fs.writeFileSync(file, `${pepper}\n`, { mode: 0o600, flag: 'wx' });
    return pepper;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(file, 'utf8').trim();
  }
}

/** A secret derived from the pepper for another purpose (e.g. actor pseudonyms). */
export function deriveSecret(pepper: string, purpose: string): string {
  return crypto.createHmac('sha256', pepper).update(`attest:${purpose}`).digest('hex');
}
