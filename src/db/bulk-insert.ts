// Multi-row INSERTs (and the UPDATEs of a sync's grown sessions, updateRowsById) of the ingest path, written as
// SQL text instead of built by Kysely's query builder. Kysely
// builds an operation node for every value and compiles them all on every call: a 25-row, 50-column insert
// costs about three times as much to build and compile as to write its text. The text of a shape (table,
// columns, row count, tail) is written once and reused; the values are always bound, never written into it.
//
// PostgreSQL: the rows travel as one JSON parameter, `insert ... select ... from json_populate_recordset(null::
// table, $1)`, which the server turns into rows of the table's own column types. Binding every value on its
// own had the `pg` driver write each one into the Bind message (a 25-session sync binds about 4,000) and the
// server parse and plan a statement of as many placeholders on every call; JSON.stringify is native and the
// statement's text is the same whatever the row count: about 5% more sessions/s, the event loop and the
// database server both a few percent lighter a session (docs/performance.md, Ingest).
// Rows holding bytes (documents) or a number JSON cannot carry (NaN, ±Infinity, which it would write as
// null) are bound value by value as before.
import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from './connection.js';
import { rowsOfSessionsTids } from './rows-of-sessions.js';

type Row = object;

const texts = new Map<string, string>();
/** Bounds the text cache: shapes are few (a table's columns are fixed, batches rarely vary in size). */
const MAX_TEXTS = 512;

function placeholderStyle(db: Db): 'dollar' | 'question' {
  return isPostgres(db) ? 'dollar' : 'question';
}

/** The text cached under `key`, written by `write` the first time. */
function cachedText(key: string, write: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = write();
    if (texts.size >= MAX_TEXTS) texts.clear();
    texts.set(key, text);
  }
  return text;
}

const columnList = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

function textOf(
  style: 'dollar' | 'question',
  table: string,
  columns: readonly string[],
  rowCount: number,
  tail: string,
): string {
  return cachedText(`${style}\u0000${table}\u0000${columns.join(',')}\u0000${rowCount}\u0000${tail}`, () => {
    const tuples: string[] = [];
    let n = 0;
    for (let r = 0; r < rowCount; r++) {
      const marks = columns.map(() => (style === 'dollar' ? `$${++n}` : '?'));
      tuples.push(`(${marks.join(', ')})`);
    }
    return `insert into "${table}" (${columnList(columns)}) values ${tuples.join(', ')}${tail ? ` ${tail}` : ''}`;
  });
}

/** PostgreSQL: the rows as one JSON parameter ($1), whatever their number. */
function jsonTextOf(table: string, columns: readonly string[], tail: string): string {
  return cachedText(`json\u0000${table}\u0000${columns.join(',')}\u0000${tail}`, () => {
    const list = columnList(columns);
    return (
      `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $1::json)` +
      `${tail ? ` ${tail}` : ''}`
    );
  });
}

/**
 * `insert into table (columns of the first row) values (...), (...) <tail>`, every value bound (on PostgreSQL,
 * rows of plain values as one JSON parameter; see above). Every row must
 * have exactly the first row's keys, none of them undefined (a programming error otherwise, thrown before anything
 * is sent). `tail` is SQL of the code (an `on conflict ...` or `returning ...` clause), never a value.
 */
export async function insertRows<R = never>(db: Db, table: string, rows: readonly Row[], tail = ''): Promise<R[]> {
  const first = rows[0];
  if (first === undefined) return [];
  const columns = Object.keys(first);
  const plainJson = checkRows('insertRows', table, columns, rows);
  const style = placeholderStyle(db);
  if (style === 'dollar' && plainJson) {
    return (await db.executeQuery<R>(CompiledQuery.raw(jsonTextOf(table, columns, tail), [JSON.stringify(rows)]))).rows;
  }
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of columns) parameters.push((row as Record<string, unknown>)[column]);
  const text = textOf(style, table, columns, rows.length, tail);
  return (await db.executeQuery<R>(CompiledQuery.raw(text, parameters))).rows;
}

/** One insertRows call's arguments, to run with others (insertRowsTogether). */
export interface RowsInsert {
  table: string;
  rows: readonly Row[];
  /** SQL of the code (an `on conflict ...` clause), never a value; no RETURNING (nothing is read back). */
  tail: string;
}

/**
 * Several inserts. SQLite, and rows holding bytes: one statement each, in the order given. PostgreSQL, when every
 * row is plain JSON: one statement, each insert a data-modifying WITH of its own (the inserts must not touch the
 * same row twice). The counter rows that every writer of a day shares (db/counter-deltas.ts) are then all locked
 * by one round trip just before the COMMIT instead of one round trip a table, and concurrent writers queue on them
 * that much less. PostgreSQL does not document an order between the WITHs; each insert still takes its rows in
 * key order, and statements built alike are executed alike, so writers of the same rows take them in one order
 * (were that ever not so, PostgreSQL detects the deadlock and fails one transaction, which nothing acknowledged).
 */
export async function insertRowsTogether(db: Db, inserts: readonly RowsInsert[]): Promise<void> {
  const moving = inserts.filter((i) => i.rows.length > 0);
  const together =
    moving.length > 1 &&
    placeholderStyle(db) === 'dollar' &&
    moving.every((i) => checkRows('insertRowsTogether', i.table, Object.keys(i.rows[0]!), i.rows));
  if (!together) {
    for (const i of moving) await insertRows(db, i.table, i.rows, i.tail);
    return;
  }
  const parts = moving.map((i, n) => {
    const text = jsonTextOf(i.table, Object.keys(i.rows[0]!), i.tail);
    return `w${n} as (${text.replace('$1::json', `$${n + 1}::json`)})`;
  });
  await db.executeQuery(
    CompiledQuery.raw(
      `with ${parts.join(', ')} select 1`,
      moving.map((i) => JSON.stringify(i.rows)),
    ),
  );
}

/**
 * Checks that every row has exactly `columns`, none undefined (a programming error otherwise, thrown before
 * anything is sent); answers whether JSON carries every value as it is (strings, booleans, finite numbers and
 * nulls only).
 */
function checkRows(caller: string, table: string, columns: readonly string[], rows: readonly Row[]): boolean {
  let plainJson = true;
  for (const row of rows) {
    const values = row as Record<string, unknown>;
    if (Object.keys(values).length !== columns.length)
      throw new Error(`${caller}(${table}): rows differ in their columns`);
    for (const column of columns) {
      const value = values[column];
      // Kysely would leave an undefined value to the column's default; here it is a mistake of the caller.
      if (value === undefined) throw new Error(`${caller}(${table}): a row lacks ${column}`);
      if (
        value !== null &&
        typeof value !== 'string' &&
        typeof value !== 'boolean' &&
        !(typeof value === 'number' && Number.isFinite(value))
      )
        plainJson = false;
    }
  }
  return plainJson;
}

/**
 * Updates rows of `table` found by `app_id` and `id`, each to its own values: `rows` hold `id` and the columns to
 * set (the same ones in every row). On PostgreSQL rows of plain values are one statement, `update ... from
 * json_populate_recordset(...)` joined on the id, instead of one statement and one round trip a row: a re-send
 * of 25 grown sessions made 25 updates, 0.19 ms of the server each plus a round trip. Elsewhere (SQLite, where a
 * statement costs no round trip, or values JSON cannot carry) one update a row.
 */
export async function updateRowsById(
  db: Db,
  table: string,
  appId: string,
  rows: readonly ({ id: string } & Row)[],
): Promise<void> {
  for (const query of updateRowsByIdQueries(db, table, appId, rows)) await db.executeQuery(query);
}

/**
 * updateRowsById's statements, in order (exported so a test can ask the store for their plan). PostgreSQL finds
 * the batch's rows one primary-key probe an id and updates them by `ctid` (db/rows-of-sessions.ts): joined on
 * the id, it chose the join by its statistics and, for an app grown since they were gathered, hash-joined every
 * row of the app on each sync.
 */
export function updateRowsByIdQueries(
  db: Db,
  table: string,
  appId: string,
  rows: readonly ({ id: string } & Row)[],
): CompiledQuery[] {
  const first = rows[0];
  if (first === undefined) return [];
  const columns = Object.keys(first);
  const plainJson = checkRows('updateRowsById', table, columns, rows);
  const set = columns.filter((c) => c !== 'id');
  if (placeholderStyle(db) === 'dollar' && plainJson && rows.length > 1) {
    const text = cachedText(
      `update\u0000${table}\u0000${columns.join(',')}`,
      () =>
        `update "${table}" as t set ${set.map((c) => `"${c}" = v."${c}"`).join(', ')} ` +
        `from json_populate_recordset(null::"${table}", $1::json) as v ` +
        `where t.ctid = any(${rowsOfSessionsTids(table, 'id', 'session', '$2', '$3')}) and t."id" = v."id"`,
    );
    return [CompiledQuery.raw(text, [JSON.stringify(rows), appId, rows.map((r) => r.id)])];
  }
  const text = cachedText(`update-one\u0000${placeholderStyle(db)}\u0000${table}\u0000${columns.join(',')}`, () => {
    const dollar = placeholderStyle(db) === 'dollar';
    const assignments = set.map((c, i) => `"${c}" = ${dollar ? `$${i + 1}` : '?'}`).join(', ');
    return (
      `update "${table}" set ${assignments} where "app_id" = ${dollar ? `$${set.length + 1}` : '?'} and "id" = ` +
      `${dollar ? `$${set.length + 2}` : '?'}`
    );
  });
  return rows.map((row) => {
    const values = row as Record<string, unknown>;
    return CompiledQuery.raw(text, [...set.map((c) => values[c]), appId, row.id]);
  });
}
