// The session list's counters (facets and repository sums) of rows a bench writes straight into the tables, moved
// as the write path moves them (src/areas/sessions/write.ts): each row added once, all written in one go.
import type { Db } from '../src/db/connection.js';
import { insertRowsTogether } from '../src/db/bulk-insert.js';
import { facetInserts, repoInserts, type FacetDelta, type RepoDelta } from '../src/areas/sessions/counter-store.js';
import { facetContributions, type FacetSource } from '../src/areas/sessions/facets.js';

export class ListCounters {
  private readonly facets = new Map<string, FacetDelta>();
  private readonly repos = new Map<string, RepoDelta>();

  /** A new session's contributions: its facet values, and to its repository one session (top-level) and its cost. */
  add(row: FacetSource & { repo: string; cost_micros: number; is_subagent: number }): void {
    for (const d of facetContributions(row)) {
      const key = `${d.repo}\u0000${d.kind}\u0000${d.value}`;
      const total = this.facets.get(key);
      if (total) total.delta += d.delta;
      else this.facets.set(key, { ...d });
    }
    const repo = this.repos.get(row.repo) ?? { repo: row.repo, sessions: 0, costMicros: 0 };
    if (!row.is_subagent) repo.sessions += 1;
    repo.costMicros += Number(row.cost_micros);
    this.repos.set(row.repo, repo);
  }

  /** Add the sums to the stored counters, rows in key order (as the write path takes their locks). */
  async write(db: Db, appId: string): Promise<void> {
    const inOrder = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v);
    await insertRowsTogether(db, [
      ...facetInserts(appId, inOrder(this.facets)),
      ...repoInserts(appId, inOrder(this.repos)),
    ]);
  }
}
