// Checkpoints of the SQLite WAL on a thread of their own, so they do not block the event loop.
//
// Why: SQLite checkpoints inside the COMMIT that takes the WAL past `wal_autocheckpoint` pages (1000 by
// default): it copies the WAL's pages into the database file and syncs both, on the thread that commits, which
// here is the event loop (libsql is synchronous). Under a steady ingest (a sync of 25 sessions adds about 150
// pages) that is every sixth or seventh commit. Measured with a timer around COMMIT (bench/sessions.ts --only
// ingest --clients 4 --batches 400, SQLite, load 1.8-2.0): without this thread 406-408 commits took 4.5-4.9 s
// of the event loop, p50 7.1-7.8 ms, p90 19.9-21.8 ms; with it 2.2-2.3 s, p50 5.5-5.7 ms, p90 6.6-7.2 ms (the
// COMMIT's own WAL fsync, which makes a 2xx durable, stays). A second connection on a worker thread runs the
// same PASSIVE checkpoint (which never blocks the writer) after each group commit; the main connection's own
// autocheckpoint is raised to 10,000 pages and stays as the bound should the thread fall behind or fail.
//
// The thread starts only once the WAL file has grown past 4 MiB (the default autocheckpoint's size), so a
// gateway that writes little never pays for it (measured: about 2 MB of resident memory idle, 7 MB more while
// it checkpoints).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The WAL size (bytes) past which the thread is started. */
const START_BYTES = 4 * 1024 * 1024;
/** How long closing waits for a checkpoint in progress before it stops the thread. */
const CLOSE_BOUND_MS = 5000;
/** The main connection's autocheckpoint once the thread runs, in pages: a bound, normally never reached. */
const MAIN_AUTOCHECKPOINT_PAGES = 10_000;

// Plain CommonJS run with `eval`: the same source under tsx, vitest and the built dist/, with nothing to resolve
// but libsql, whose path the main thread passes. A request that arrives while a checkpoint runs is coalesced
// into the one run after it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// A checkpoint syncs the WAL before copying it and the database file after; OFF would skip those syncs.
db.pragma('synchronous = FULL');
db.pragma('cache_size = -1024');
let scheduled = false;
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  if (scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or failed: the next commit asks again, and the main connection's autocheckpoint bounds the WAL.
    }
  });
});
`;

export class WalCheckpointer {
  private worker: Worker | null = null;
  private starting = false;

  /**
   * @param file the database file
   * @param raiseMainAutocheckpoint sets the main connection's `wal_autocheckpoint` to the given number of pages
   */
  constructor(private readonly file: string, private readonly raiseMainAutocheckpoint: (pages: number) => Promise<void>) {}

  /** After a commit: asks the thread for a checkpoint, starting it first once the WAL has grown past 4 MiB. */
  async afterCommit(walBytes: () => Promise<number>): Promise<void> {
    if (this.worker) {
      this.worker.postMessage(0);
      return;
    }
    if (this.starting || (await walBytes()) < START_BYTES) return;
    this.starting = true;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { libsql: createRequire(import.meta.url).resolve('libsql'), file: this.file },
      resourceLimits: { maxOldGenerationSizeMb: 16 },
    });
    worker.unref();
    // A thread that dies leaves checkpoints to the main connection again (its default autocheckpoint).
    worker.once('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      void this.raiseMainAutocheckpoint(1000).catch(() => undefined);
    });
    this.worker = worker;
    await this.raiseMainAutocheckpoint(MAIN_AUTOCHECKPOINT_PAGES);
    worker.postMessage(0);
  }

  /** Stops the thread (before the main connection closes). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('close');
    // A checkpoint in progress finishes first; should the thread not exit within the bound it is stopped without
    // closing its connection, which loses nothing: a checkpoint only copies what the WAL holds, and the next
    // one (or the next open) copies again whatever this one left.
    const bound = setTimeout(() => void worker.terminate(), CLOSE_BOUND_MS);
    await exited;
    clearTimeout(bound);
  }
}
