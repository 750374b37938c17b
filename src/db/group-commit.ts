// Group commit for SQLite: concurrent writers' transactions share one COMMIT (one fsync), and each writer is
// answered only after that commit, so a 2xx still means durable.
//
// Why: SQLite has one connection here and `synchronous = FULL`, so every commit waits for an fsync while the
// other requests' transactions queue behind it. Several writers that arrive while a transaction runs are
// gathered and run one after another inside a single transaction, each in its own SAVEPOINT: one writer's
// failure rolls back only its own statements and fails only its own request. If the shared transaction
// itself fails (the COMMIT, or a savepoint that cannot be rolled back), nothing of it is durable and every
// writer runs again alone, so each gets the answer its own transaction would have given.
//
// PostgreSQL has a pool of connections whose commits already overlap (and its WAL flushes group themselves),
// so there a writer simply runs its own transaction.
import { sql } from 'kysely';
import type { Db, Dialect } from './connection.js';

/**
 * Called by openDatabase for an SQLite file: `hook` runs after each group's commit (it asks the checkpoint
 * thread for a checkpoint, db/wal-checkpointer.ts). It must not throw.
 */
export function afterEachCommit(db: Db, hook: () => void): void {
  groupOf(db).afterCommit = hook;
}

/** A writer's statements; it may run more than once (after a failed group), so it reads what it needs first. */
export type TransactionWork = (trx: Db) => Promise<void>;

interface Writer {
  work: TransactionWork;
  resolve(): void;
  reject(error: unknown): void;
}

/** At most this many writers share one transaction, which bounds how long the last of them waits. */
const MAX_GROUP = 16;
/** The longest a ready group waits for writers still preparing (a safety bound; they normally take a few ms). */
const MAX_GATHER_MS = 50;

class CommitGroup {
  /** Transactions committed so far (a group's, or a writer's alone): how well writers share commits. */
  committed = 0;
  /** Set by afterEachCommit. */
  afterCommit: (() => void) | null = null;
  private readonly waiting: Writer[] = [];
  private running = false;
  /** Writers that announced themselves and have neither submitted their work nor left. */
  private preparing = 0;
  private allReady: (() => void) | null = null;

  constructor(private readonly db: Db) {}

  announce(): DurableWriter {
    this.preparing += 1;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.preparing -= 1;
      if (this.preparing === 0) this.allReady?.();
    };
    return {
      commit: (work) =>
        new Promise<void>((resolve, reject) => {
          if (settled) throw new Error('a durable writer commits once');
          this.waiting.push({ work, resolve, reject });
          settle();
          if (!this.running) void this.drain();
        }),
      leave: settle,
    };
  }

  /**
   * One group at a time. Before a group starts it lets the event loop take one turn, and then waits for the
   * writers that announced themselves and are still preparing (validating, compressing: work the event loop does
   * meanwhile), so they share its commit instead of each waiting for a commit of their own.
   *
   * The turn matters because the commit itself holds the event loop (libsql is synchronous): while one sync is
   * checked and committed, the next syncs' bodies wait unread in their sockets, so without it every group held
   * one writer. `setImmediate` runs after the turn's I/O phase, where the bodies already in are read, parsed and
   * announced. With 4 clients that halves the commits, and a shared commit writes the pages its writers share
   * once: about a third more sessions a second and half the p99 (`npx tsx bench/sessions.ts --only ingest
   * --clients 4 --no-postgres`). A lone writer waits one turn.
   */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await this.gathered();
        await this.commit(this.waiting.splice(0, MAX_GROUP));
        this.afterCommit?.();
      }
    } finally {
      this.running = false;
    }
  }

  private gathered(): Promise<void> {
    if (this.preparing === 0 || this.waiting.length >= MAX_GROUP) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, MAX_GATHER_MS);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.allReady = null;
        resolve();
      }
      this.allReady = done;
    });
  }

  private async commit(group: Writer[]): Promise<void> {
    if (group.length === 1) return this.alone(group[0]!);
    const failed = new Map<Writer, unknown>();
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [i, writer] of group.entries()) {
          const savepoint = sql.raw(`attest_writer_${i}`);
          await sql`savepoint ${savepoint}`.execute(trx);
          try {
            await writer.work(trx);
          } catch (error) {
            // A failure to roll back leaves the transaction unknown: it propagates and the whole group reruns alone.
            await sql`rollback to savepoint ${savepoint}`.execute(trx);
            failed.set(writer, error);
          }
          await sql`release savepoint ${savepoint}`.execute(trx);
        }
      });
    } catch {
      for (const writer of group) await this.alone(writer);
      return;
    }
    this.committed += 1;
    for (const writer of group) {
      if (failed.has(writer)) writer.reject(failed.get(writer));
      else writer.resolve();
    }
  }

  private async alone(writer: Writer): Promise<void> {
    try {
      await this.db.transaction().execute(writer.work);
      this.committed += 1;
      writer.resolve();
    } catch (error) {
      writer.reject(error);
    }
  }
}

/**
 * A writer that will commit once: announced when its request starts its work, so a commit about to start can
 * wait for it. Call `leave()` in a `finally` (a no-op after `commit`), or the group waits for it in vain until
 * its time bound.
 */
export interface DurableWriter {
  /** Run `work` in a transaction; resolves once it is committed (durable). */
  commit(work: TransactionWork): Promise<void>;
  leave(): void;
}

const groups = new WeakMap<Db, CommitGroup>();

/** How many transactions the durable writers of this SQLite store have committed since it opened (0 on PostgreSQL). */
export function commitCount(db: Db): number {
  return groups.get(db)?.committed ?? 0;
}

/**
 * Announce a writer. On SQLite concurrent writers share one commit (see above); on PostgreSQL each commits its
 * own transaction. The work must use only `trx` (on SQLite a query on the outer `db` would wait for the very
 * connection the transaction holds).
 */
export function durableWriter(db: Db, dialect: Dialect): DurableWriter {
  if (dialect !== 'sqlite') return { commit: (work) => db.transaction().execute(work), leave: () => undefined };
  return groupOf(db).announce();
}

function groupOf(db: Db): CommitGroup {
  let group = groups.get(db);
  if (!group) {
    group = new CommitGroup(db);
    groups.set(db, group);
  }
  return group;
}
