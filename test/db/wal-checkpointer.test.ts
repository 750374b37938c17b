// The SQLite checkpoint thread (src/db/wal-checkpointer.ts) after it dies: the main connection's default
// autocheckpoint comes back at once, and a commit after a wait starts another thread, the wait doubling while
// threads keep dying, so one that cannot open the database is not restarted in a loop. Real threads and a real
// database file; only the clock of the wait is the test's.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { WalCheckpointer } from '../../src/db/wal-checkpointer.js';
import { testTempDir } from '../helpers/tmp.js';

const grown = () => Promise.resolve(5 * 1024 * 1024);
const open: WalCheckpointer[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

function checkpointer(file: string) {
  let clock = 1_000_000;
  const raised: number[] = [];
  const c = new WalCheckpointer(
    file,
    async (pages) => {
      raised.push(pages);
    },
    () => clock,
  );
  open.push(c);
  return {
    c,
    raised,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the checkpoint thread, when it dies', () => {
  it("restores the writer's autocheckpoint, retries after 1 s then 2 s, checkpoints once the db opens", async () => {
    const dir = testTempDir('wal-checkpointer-');
    const file = path.join(dir, 'attest.db');
    // A directory where the database should be: the thread cannot open it and dies at start.
    fs.mkdirSync(file);
    const { c, raised, advance } = checkpointer(file);

    await c.afterCommit(grown);
    await expect.poll(() => raised).toEqual([10_000, 1000]);

    // Right after the death, and until 1 s has passed, commits do not start another thread.
    await c.afterCommit(grown);
    advance(999);
    await c.afterCommit(grown);
    expect(raised).toEqual([10_000, 1000]);

    advance(1);
    await c.afterCommit(grown);
    await expect.poll(() => raised).toEqual([10_000, 1000, 10_000, 1000]);

    // It died again at once: the next wait is 2 s.
    advance(1999);
    await c.afterCommit(grown);
    expect(raised).toHaveLength(4);

    // Meanwhile the database becomes openable: a WAL database whose writer never checkpoints by itself.
    fs.rmdirSync(file);
    const writer = new SqliteDatabase(file);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      writer.exec('create table t (v text)');
      const insert = writer.prepare('insert into t (v) values (?)');
      for (let i = 0; i < 200; i += 1) insert.run(['x'.repeat(4000)]);
      const before = fs.statSync(file).size;
      expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(800_000);

      advance(1);
      await c.afterCommit(grown);
      expect(raised).toEqual([10_000, 1000, 10_000, 1000, 10_000]);
      // The new thread copies the WAL's pages into the database file (which grows by them) and stays up.
      await expect.poll(() => fs.statSync(file).size - before, { timeout: 10_000 }).toBeGreaterThan(800_000);
      expect(raised).toHaveLength(5);
    } finally {
      await c.close();
      writer.close();
    }
  });

  it('starts no thread once closed', async () => {
    const dir = testTempDir('wal-checkpointer-closed-');
    const { c, raised } = checkpointer(path.join(dir, 'attest.db'));
    await c.close();
    await c.afterCommit(grown);
    expect(raised).toEqual([]);
  });
});
