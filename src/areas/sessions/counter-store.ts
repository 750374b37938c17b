// SQL of the sessions list's counters: sessions per facet value (actor, agent type, branch, model, ...) and
// sessions and cost per repository, moved by deltas as sessions are stored, replaced and deleted, and read
// by the list's facets and repository picker (list-store.ts). Every query is scoped by app_id.
import type { Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
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
  const moving = deltas.filter((d) => d.delta !== 0);
  for (let i = 0; i < moving.length; i += 300) {
    await insertRows(
      db,
      'session_facets',
      moving
        .slice(i, i + 300)
        .map((d) => ({ app_id: appId, repo: d.repo, kind: d.kind, value: d.value, label: d.label, sessions: d.delta })),
      'on conflict ("app_id", "repo", "kind", "value") do update set "sessions" = "session_facets"."sessions" + ' +
        'excluded."sessions", ' +
        '"label" = coalesce(excluded."label", "session_facets"."label")',
    );
  }
}

export interface RepoDelta {
  repo: string;
  sessions: number;
  costMicros: number;
}

/** Move repo counters; `deltas` must hold each repo once. */
export async function applyRepoDeltas(db: Db, appId: string, deltas: RepoDelta[]): Promise<void> {
  const moving = deltas.filter((d) => d.sessions !== 0 || d.costMicros !== 0);
  if (!moving.length) return;
  await db
    .insertInto('session_repos')
    .values(moving.map((d) => ({ app_id: appId, repo: d.repo, sessions: d.sessions, cost_micros: d.costMicros })))
    .onConflict((oc) =>
      oc.columns(['app_id', 'repo']).doUpdateSet((eb) => ({
        sessions: eb('session_repos.sessions', '+', eb.ref('excluded.sessions')),
        cost_micros: eb('session_repos.cost_micros', '+', eb.ref('excluded.cost_micros')),
      })),
    )
    .execute();
}
