// The plan a store makes of one of the gateway's own statements, for tests that must hold whatever the data:
// "this lookup reads an index, not every row of the factory" (issue 17).
import path from 'node:path';
import SqliteDatabase from 'libsql';
import type { CompiledQuery } from 'kysely';
import { usingPostgres, type TestGateway } from './gateway.js';

export interface PlanStep {
  /** The table the step reads, when it reads one. */
  relation: string | null;
  /**
   * SQLite: the step's `EXPLAIN QUERY PLAN` detail ("SEARCH t USING INDEX i (a=? AND b=?)"). PostgreSQL: the
   * node's type, then its index and index condition when it has them ("Index Scan sessions_app_key (...)").
   */
  text: string;
}

/**
 * Every step of the store's plan of `query`, with its parameters. SQLite is asked on a connection of its own to
 * the gateway's file: libsql leaves an `EXPLAIN` of a write in progress on its connection, which would keep the
 * gateway's next transaction from committing. PostgreSQL is asked on the gateway's own pool (its schema).
 */
export async function planOf(gw: TestGateway, query: CompiledQuery): Promise<PlanStep[]> {
  if (usingPostgres) {
    const res = await gw.app.attest.db.executeQuery<{ 'QUERY PLAN': unknown }>({
      ...query,
      sql: `explain (format json) ${query.sql}`,
    });
    const steps: PlanStep[] = [];
    const walk = (node: Record<string, unknown>) => {
      const parts = [node['Node Type'], node['Index Name'], node['Index Cond']].filter(
        (p): p is string => typeof p === 'string',
      );
      steps.push({
        relation: typeof node['Relation Name'] === 'string' ? node['Relation Name'] : null,
        text: parts.join(' '),
      });
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((res.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
    return steps;
  }
  const own = new SqliteDatabase(path.join(gw.config.dataDir, 'attest.db'));
  try {
    const rows = own.prepare(`explain query plan ${query.sql}`).all([...query.parameters]) as { detail: string }[];
    return rows.map(({ detail }) => ({ relation: /^(?:SEARCH|SCAN) (\w+)/.exec(detail)?.[1] ?? null, text: detail }));
  } finally {
    own.close();
  }
}

/** The steps of the plan of `query` that read `table`, as text. */
export async function readsOf(gw: TestGateway, query: CompiledQuery, table: string): Promise<string[]> {
  return (await planOf(gw, query)).filter((s) => s.relation === table).map((s) => s.text);
}
