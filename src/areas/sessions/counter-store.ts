// SQL of the sessions list's counters: sessions per facet value (actor, agent type, branch, model, ...) and
// sessions and cost per repository, moved by deltas as sessions are stored, replaced and deleted, and read
// by the list's facets and repository picker (list-store.ts). Every query is scoped by app_id.
import type { Db } from '../../db/connection.js';
import { insertRowsTogether, type RowsInsert } from '../../db/bulk-insert.js';
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

export interface RepoDelta {
  repo: string;
  sessions: number;
  costMicros: number;
}

/** The upsert that moves repo counters (in the order of `deltas`), to write with other counter rows. */
export function repoInserts(appId: string, deltas: readonly RepoDelta[]): RowsInsert[] {
  const moving = deltas.filter((d) => d.sessions !== 0 || d.costMicros !== 0);
  if (!moving.length) return [];
  const rows = moving.map((d) => ({ app_id: appId, repo: d.repo, sessions: d.sessions, cost_micros: d.costMicros }));
  const tail =
    'on conflict ("app_id", "repo") do update set "sessions" = "session_repos"."sessions" + excluded."sessions", ' +
    '"cost_micros" = "session_repos"."cost_micros" + excluded."cost_micros"';
  return [{ table: 'session_repos', rows, tail }];
}
