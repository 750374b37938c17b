// Counter rows moved by differences inside a writer's transaction (the metrics rollups, the PR spend sums):
// contributions are gathered per row key, summed, and written as one upsert per table that adds them to what
// is stored. Rows are written in key order, so two writers of the same rows take their locks in the same order
// (PostgreSQL) and wait for each other instead of deadlocking.
import type { Db } from './connection.js';
import { insertRowsTogether, type RowsInsert } from './bulk-insert.js';

export interface CounterTable {
  table: string;
  /** The primary key's columns (app_id first), as stored. */
  keys: readonly string[];
  counters: readonly string[];
}

type KeyValue = string | number;

/** The order of row keys (and session keys) every writer takes rows in, so concurrent writers never deadlock. */
export const byKey = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** A map's values in byKey order of their keys: how every writer hands counter rows to the store. */
export const valuesInKeyOrder = <T>(m: ReadonlyMap<string, T>): T[] =>
  [...m.entries()].sort(([x], [y]) => byKey(x, y)).map(([, v]) => v);

export class CounterDeltas {
  private readonly rows = new Map<CounterTable, Map<string, { key: KeyValue[]; counts: number[] }>>();

  /** Add `counts` (in the table's counter order) times `sign` to the row of `key` (in the table's key order). */
  add(table: CounterTable, key: readonly KeyValue[], counts: readonly number[], sign: number): void {
    let rows = this.rows.get(table);
    if (!rows) this.rows.set(table, (rows = new Map()));
    const k = key.join('\u0000');
    let row = rows.get(k);
    if (!row) rows.set(k, (row = { key: [...key], counts: table.counters.map(() => 0) }));
    for (let i = 0; i < counts.length; i++) row.counts[i]! += sign * counts[i]!;
  }

  /** Write every row whose sum moved, table by table in the order given (one statement on PostgreSQL). */
  async write(db: Db, tables: readonly CounterTable[]): Promise<void> {
    await insertRowsTogether(db, this.inserts(tables));
  }

  /** The upserts that write every row whose sum moved, table by table in the order given, rows in key order. */
  inserts(tables: readonly CounterTable[]): RowsInsert[] {
    const out: RowsInsert[] = [];
    for (const table of tables) {
      const rows = this.rows.get(table);
      if (!rows) continue;
      const moving = valuesInKeyOrder(rows)
        .filter((r) => r.counts.some((c) => c !== 0))
        .map((r) => {
          const row: Record<string, KeyValue> = {};
          table.keys.forEach((c, i) => {
            row[c] = r.key[i]!;
          });
          table.counters.forEach((c, i) => {
            row[c] = r.counts[i]!;
          });
          return row;
        });
      const tail = `on conflict (${table.keys.map((c) => `"${c}"`).join(', ')}) do update set ${table.counters
        .map((c) => `"${c}" = "${table.table}"."${c}" + excluded."${c}"`)
        .join(', ')}`;
      for (let i = 0; i < moving.length; i += 300)
        out.push({ table: table.table, rows: moving.slice(i, i + 300), tail });
    }
    return out;
  }
}
