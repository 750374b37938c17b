// Blobs as files: <dir>/<aa>/<sha256>. Written to a temp file, fsynced and renamed, so a crash never
// leaves a partial blob under its final name.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isSha256, type BlobStore, type StoredBlob } from './store.js';
import { ensurePrivateDir } from '../data-dir.js';

export class FsBlobStore implements BlobStore {
  readonly kind = 'fs' as const;

  constructor(private readonly dir: string) {}

  /** Creates the blob dir (0700, like the data dir) before the first blob arrives. */
  ensureDir(): void {
    ensurePrivateDir(this.dir);
  }

  private pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new Error('blob name must be a lowercase sha256 hex digest');
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  async put(sha256: string, bytes: Buffer): Promise<void> {
    const final = this.pathOf(sha256);
    if (await this.has(sha256)) {
      // Restart the blob sweep's grace period: an upload of bytes that were orphaned is a reference on its way.
      const now = new Date();
      await fs.utimes(final, now, now).catch(() => undefined);
      return;
    }
    await fs.mkdir(path.dirname(final), { recursive: true, mode: 0o700 });
    const tmp = `${final}.${crypto.randomUUID()}.tmp`;
    const handle = await fs.open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, final);
  }

  async get(sha256: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }

  async delete(sha256: string): Promise<void> {
    await fs.rm(this.pathOf(sha256), { force: true });
  }

  async *list(): AsyncIterable<StoredBlob> {
    let shards: string[];
    try {
      shards = await fs.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await fs.readdir(path.join(this.dir, shard))) {
        // Temp files of a write in progress (or crashed) are not blobs.
        if (!isSha256(name) || !name.startsWith(shard)) continue;
        try {
          const st = await fs.stat(path.join(this.dir, shard, name));
          yield { sha256: name, writtenAt: st.mtimeMs };
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
    }
  }

  async check(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const probe = path.join(this.dir, `.health-${crypto.randomUUID()}`);
    await fs.writeFile(probe, 'ok', { mode: 0o600 });
    const back = await fs.readFile(probe, 'utf8');
    await fs.rm(probe, { force: true });
    if (back !== 'ok') throw new Error('blob store read back different bytes');
  }
}
