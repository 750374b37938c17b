// Serialising transactions that replace a set of rows (delete, then insert): on PostgreSQL two of them can
// both delete the same old rows and both insert, the later failing on a unique key or deadlocking with the
// other. SQLite runs one write transaction at a time, so there is nothing to do there.
import { sql } from 'kysely';
import type { Db, Dialect } from './connection.js';

/**
 * Inside `trx`, wait for any other transaction holding `key` and hold it until commit or rollback
 * (PostgreSQL's transaction-scoped advisory lock on a hash of the key).
 */
export async function lockForTransaction(trx: Db, dialect: Dialect, key: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/**
 * lockForTransaction for each of `keys`, in their sorted order (so two transactions sharing keys take them in
 * the same order and never deadlock), in one statement instead of one round trip a key: unnest yields the
 * array's elements in order, and the aggregate calls the lock function once a row, in that order.
 */
export async function lockAllForTransaction(trx: Db, dialect: Dialect, keys: readonly string[]): Promise<void> {
  if (dialect !== 'postgres' || keys.length === 0) return;
  if (keys.length === 1) return lockForTransaction(trx, dialect, keys[0]!);
  const sorted = [...new Set(keys)].sort();
  await sql`select count(pg_advisory_xact_lock(hashtextextended(k, 0))) from unnest(${sorted}::text[]) as k`.execute(
    trx,
  );
}
