// SQL of the sessions list's counters: sessions per facet value (actor, agent type, branch, model, ...) and
// sessions and cost per repository, moved by deltas as sessions are stored, replaced and deleted, and read
// by the list's facets and repository picker (list-store.ts). Every query is scoped by app_id.
import type { Db } from '../../db/connection.js';
import { insertRowsTogether, type RowsInsert } from '../../db/bulk-insert.js';
import { CounterDeltas, valuesInKeyOrder, type CounterTable } from '../../db/counter-deltas.js';
import { facetContributions, type FacetSource } from './facets.js';
import type { FacetKind } from './store.js';

export interface FacetDelta {
  repo: string;
  kind: FacetKind;
  value: string;
  label: string | null;
  delta: number;
}

/** Move facet counters; `deltas` must hold each (repo, kind, value) once. */
export async function applyFacetDeltas(db: Db, appId: string, deltas: FacetDelta[]): Promise<void> {
  await insertRowsTogether(db, facetInserts(appId, deltas));
}

/** The upserts that move facet counters (in the order of `deltas`), to write with other counter rows. */
export function facetInserts(appId: string, deltas: readonly FacetDelta[]): RowsInsert[] {
  const moving = deltas.filter((d) => d.delta !== 0);
  const tail =
    'on conflict ("app_id", "repo", "kind", "value") do update set "sessions" = "session_facets"."sessions" + ' +
    'excluded."sessions", "label" = coalesce(excluded."label", "session_facets"."label")';
  const out: RowsInsert[] = [];
  for (let i = 0; i < moving.length; i += 300) {
    const rows = moving
      .slice(i, i + 300)
      .map((d) => ({ app_id: appId, repo: d.repo, kind: d.kind, value: d.value, label: d.label, sessions: d.delta }));
    out.push({ table: 'session_facets', rows, tail });
  }
  return out;
}

/** Sessions (top-level) and cost per repository, the repository picker's counters. */
const REPOS: CounterTable = { table: 'session_repos', keys: ['app_id', 'repo'], counters: ['sessions', 'cost_micros'] };

/**
 * How a set of session writes moves the list's counters: each stored row's facet values and repository sums added
 * (sign +1), each replaced or deleted row's taken back (sign -1), summed by counter. A decrement names no label, so
 * the stored one stays (the upsert's coalesce); an increment's label is the row's current one (an actor's name).
 */
export class ListCounterMoves {
  private readonly facets = new Map<string, FacetDelta>();
  private readonly repos = new CounterDeltas();

  add(row: FacetSource & { app_id: string; cost_micros: number }, sign: 1 | -1): void {
    for (const d of facetContributions(row)) {
      const key = `${d.repo}\u0000${d.kind}\u0000${d.value}`;
      const label = sign > 0 ? d.label : null;
      const total = this.facets.get(key);
      if (!total) this.facets.set(key, { ...d, label, delta: sign });
      else {
        total.delta += sign;
        total.label = label ?? total.label;
      }
    }
    this.repos.add(REPOS, [row.app_id, row.repo], [row.is_subagent ? 0 : 1, Number(row.cost_micros)], sign);
  }

  /** The upserts of every counter that moved, in key order (facets, then repositories), as writers take them. */
  inserts(appId: string): RowsInsert[] {
    return [...facetInserts(appId, valuesInKeyOrder(this.facets)), ...this.repos.inserts([REPOS])];
  }
}
