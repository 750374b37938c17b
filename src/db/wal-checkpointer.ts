// Checkpoints of the SQLite WAL on a thread of their own, so they do not block the event loop.
//
// Why: SQLite checkpoints inside the COMMIT that takes the WAL past `wal_autocheckpoint` pages (1000 by
// default): it copies the WAL's pages into the database file and syncs both, on the thread that commits, which
// here is the event loop (libsql is synchronous). Under a steady ingest (a sync of 25 sessions adds about 150
// pages) that is every sixth or seventh commit, and those commits are the slow tail of the ingest's latency:
// with the checkpoints here, the event loop spends about half as long in COMMIT and its p90 is a third (the
// COMMIT's own WAL fsync, which makes a 2xx durable, stays). A second connection on a worker thread runs the
// same PASSIVE checkpoint (which never blocks the writer) when group commits ask for it; the main connection's own
// autocheckpoint is raised to 10,000 pages and stays as the bound should the thread fall behind or fail.
//
// The thread checkpoints at most every 500 ms, not after every commit: a checkpoint copies each page once, from
// its newest frame, so the pages that every sync writes again (the B-trees' upper levels, the counters' rows, the
// hot index leaves) are copied once for all the commits of that time instead of once a commit: about 15% less of
// the process's CPU a session and about 40% less of the kernel's (bench/memory.ts's ingest, alternated;
// docs/performance.md, Ingest). A longer interval (2 s) buys little more and lets the WAL grow longer between
// copies. A 2xx stays durable: the COMMIT's WAL fsync does not wait for a checkpoint.
//
// Under a steady ingest the WAL file reaches about 44 MB either way: SQLite starts a WAL over from the file's
// beginning without shrinking the file, and between two starts the WAL takes up to about 10,000 frames.
// It starts over when a write begins on a fully copied WAL: after a checkpoint of this thread that no commit
// overtook (most of them), or after the main connection's own checkpoint at its 10,000-page bound (on the event
// loop). A bound of 40,000 pages leaves every start over to the thread and gains a few percent of sessions a
// second, but lets the file reach about 160 MB: the 10,000-page bound is the trade kept.
//
// The thread starts only once the WAL file has grown past 4 MiB (the default autocheckpoint's size), so a
// gateway that writes little never pays for it (about 2 MB of resident memory idle, 7 MB more while it
// checkpoints).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The WAL size (bytes) past which the thread is started. */
const START_BYTES = 4 * 1024 * 1024;
/**
 * The least time between two checkpoints of the thread: the commits of that time are copied in one checkpoint,
 * each page once however many of them wrote it (see the header).
 */
const CHECKPOINT_INTERVAL_MS = 500;
/** How long closing waits for a checkpoint in progress before it stops the thread. */
const CLOSE_BOUND_MS = 5000;
/**
 * The main connection's autocheckpoint once the thread runs, in pages: a bound, reached about twice in a 20 s ingest
 * of 2,000 sessions/s (see the header).
 */
const MAIN_AUTOCHECKPOINT_PAGES = 10_000;
/** After a thread dies, how long until another may start: doubled on each death in a row, up to the cap. */
const RESTART_FIRST_MS = 1000;
const RESTART_CAP_MS = 5 * 60 * 1000;
/** A thread that lived this long before dying was not failing at start: the next wait starts over. */
const HEALTHY_LIFE_MS = 60 * 1000;

// Plain CommonJS run with `eval`: the same source under tsx, vitest and the built dist/, with nothing to resolve
// but libsql, whose path the main thread passes. A request that arrives while a checkpoint runs is coalesced
// into the one run after it, which starts no sooner than CHECKPOINT_INTERVAL_MS after the one before.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.libsql);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// A checkpoint syncs the WAL before copying it and the database file after; OFF would skip those syncs.
db.pragma('synchronous = FULL');
db.pragma('cache_size = -1024');
let scheduled = null;
let lastRun = 0;
function checkpoint() {
  scheduled = null;
  lastRun = Date.now();
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failed: the next commit asks again, and the main connection's autocheckpoint bounds the WAL.
  }
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    if (scheduled) clearTimeout(scheduled);
    db.close();
    parentPort.close();
    return;
  }
  if (scheduled) return;
  scheduled = setTimeout(checkpoint, Math.max(0, lastRun + workerData.intervalMs - Date.now()));
});
`;

export class WalCheckpointer {
  private worker: Worker | null = null;
  private starting = false;
  /** When another thread may start after one died (ms since the epoch), and the wait after the next death. */
  private restartAt = 0;
  private restartDelay = RESTART_FIRST_MS;
  private closed = false;

  /**
   * @param file the database file
   * @param raiseMainAutocheckpoint sets the main connection's `wal_autocheckpoint` to the given number of pages
   * @param now the clock of the restart wait (a test's own)
   */
  constructor(
    private readonly file: string,
    private readonly raiseMainAutocheckpoint: (pages: number) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  /** After a commit: asks the thread for a checkpoint, starting it first once the WAL has grown past 4 MiB. */
  async afterCommit(walBytes: () => Promise<number>): Promise<void> {
    if (this.worker) {
      this.worker.postMessage(0);
      return;
    }
    if (this.starting || this.closed || this.now() < this.restartAt || (await walBytes()) < START_BYTES) return;
    this.starting = true;
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          libsql: createRequire(import.meta.url).resolve('libsql'),
          file: this.file,
          intervalMs: CHECKPOINT_INTERVAL_MS,
        },
        resourceLimits: { maxOldGenerationSizeMb: 16 },
      });
      worker.unref();
      const startedAt = this.now();
      worker.once('error', () => undefined);
      // A thread that dies leaves checkpoints to the main connection again (its default autocheckpoint) until a
      // commit after the wait starts another: a thread that fails at once is retried ever less often, not in a loop.
      worker.once('exit', () => {
        if (this.worker !== worker) return;
        this.worker = null;
        if (this.now() - startedAt >= HEALTHY_LIFE_MS) this.restartDelay = RESTART_FIRST_MS;
        this.restartAt = this.now() + this.restartDelay;
        this.restartDelay = Math.min(this.restartDelay * 2, RESTART_CAP_MS);
        void this.raiseMainAutocheckpoint(1000).catch(() => undefined);
      });
      this.worker = worker;
      await this.raiseMainAutocheckpoint(MAIN_AUTOCHECKPOINT_PAGES);
      // Died while the bound was being raised: its exit's default must win.
      if (this.worker !== worker) await this.raiseMainAutocheckpoint(1000);
      else worker.postMessage(0);
    } finally {
      this.starting = false;
    }
  }

  /** Stops the thread (before the main connection closes). */
  async close(): Promise<void> {
    this.closed = true;
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
