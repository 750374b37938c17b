// PostgreSQL only: a second connection that begins a transaction in the gateway's schema and keeps it open
// (holding the row locks its statements took) until released, so that two requests meet where they would
// race in production. SQLite has one writer: there its transactions cannot overlap and this answers null.
import pg from 'pg';
import type { TestGateway } from './gateway.js';

export interface RowHold {
  /** Until `n` other sessions wait on a lock in a statement naming `table` (at most 2 s: the answers a test
   *  checks are right either way; the wait only makes the requests meet). */
  waiters(n: number, table: string): Promise<void>;
  /** Commits the held transaction and closes the connection. */
  release(): Promise<void>;
}

export async function holdRows(
  gw: TestGateway,
  statements: (schema: string) => [string, unknown[]][],
): Promise<RowHold | null> {
  const schema = gw.config.databaseSchema;
  if (!gw.config.databaseUrl || !schema) return null;
  const client = new pg.Client({ connectionString: gw.config.databaseUrl });
  await client.connect();
  await client.query('begin');
  for (const [text, values] of statements(schema)) await client.query(text, values);
  return {
    async waiters(n, table) {
      for (let i = 0; i < 200; i++) {
        const waiting = await client.query(
          `select count(*)::int as n from pg_stat_activity
            where wait_event_type = 'Lock' and pid <> pg_backend_pid() and query like $1`,
          [`%${table}%`],
        );
        if (waiting.rows[0].n >= n) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async release() {
      await client.query('commit');
      await client.end();
    },
  };
}
