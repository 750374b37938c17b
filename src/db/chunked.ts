// Writes over many rows or keys, a bounded chunk a statement (SQLite's limit of bound parameters, PostgreSQL's
// size of a statement): the loops the stores of several areas wrote each for itself, in one place.
import { sql } from 'kysely';
import { insertRows } from './bulk-insert.js';
import type { Db } from './connection.js';

/** `rows` in slices of `size` (the last one shorter), one statement's worth each. */
export function* chunks<R>(rows: readonly R[], size: number): Generator<R[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/**
 * Insert the rows whose unique key (`conflict`, its columns) is not stored yet, `chunk` rows a statement; a row
 * another writer stored first is left as it is. Answers the `key` column of the rows inserted.
 */
export async function insertIfAbsent(
  db: Db,
  table: string,
  rows: readonly object[],
  conflict: readonly string[],
  key: string,
  chunk: number,
): Promise<Set<string>> {
  const tail = `on conflict (${conflict.map((c) => `"${c}"`).join(', ')}) do nothing returning "${key}"`;
  const inserted = new Set<string>();
  for (const part of chunks(rows, chunk)) {
    const res = await insertRows<Record<string, string>>(db, table, part, tail);
    for (const r of res) inserted.add(r[key]!);
  }
  return inserted;
}

/** Delete the factory's rows of `table` whose `column` holds one of `values`, `chunk` values a statement. */
export async function deleteWhereIn(
  db: Db,
  table: string,
  appId: string,
  column: string,
  values: readonly string[],
  chunk: number,
): Promise<void> {
  for (const part of chunks(values, chunk)) {
    const inPart = sql`${sql.ref(column)} in (${sql.join(part)})`;
    await sql`delete from ${sql.table(table)} where ${sql.ref('app_id')} = ${appId} and ${inPart}`.execute(db);
  }
}
