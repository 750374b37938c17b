// The list's facet counters (actor, agent type, branch, model, worker kind, origin, signal) that one stored
// session adds to (counter-store.ts sums them over the sessions a write adds, replaces or deletes).
import type { Signal } from './list-store.js';
import type * as store from './store.js';
import type * as counterStore from './counter-store.js';

export type FacetSource = Pick<
  store.SessionRow,
  | 'is_subagent'
  | 'repo'
  | 'actor_id'
  | 'actor_name'
  | 'agent_type'
  | 'branch'
  | 'models'
  | 'worker_kind'
  | 'origin'
  | 'steering_count'
  | 'rejected_tool_call_count'
  | 'tool_error_count'
  | 'api_error_count'
>;

/** The counters one top-level session adds to (subagent sessions count in none). */
export function facetContributions(row: FacetSource): counterStore.FacetDelta[] {
  if (row.is_subagent) return [];
  const out: counterStore.FacetDelta[] = [];
  const add = (kind: store.FacetKind, value: string | null, label: string | null = null) => {
    if (value) out.push({ repo: row.repo, kind, value, label, delta: 1 });
  };
  add('actor', row.actor_id, row.actor_name);
  add('agentType', row.agent_type);
  add('branch', row.branch);
  for (const m of JSON.parse(row.models) as string[]) add('model', m);
  add('workerKind', row.worker_kind);
  add('origin', row.origin);
  for (const signal of signalsOf(row)) add('signal', signal);
  return out;
}

/** The list's `signal` filter values a session matches (the same rules as the SQL filter in list-store.ts). */
export function signalsOf(
  row: Pick<store.SessionRow, 'steering_count' | 'rejected_tool_call_count' | 'tool_error_count' | 'api_error_count'>,
): Signal[] {
  const out: Signal[] = [];
  if (row.steering_count > 0) out.push('hands-on');
  if (row.rejected_tool_call_count > 0) out.push('denied');
  if (row.tool_error_count > 0) out.push('tool-errors');
  if (row.api_error_count > 0) out.push('provider-errors');
  if (row.tool_error_count === 0 && row.api_error_count === 0 && row.rejected_tool_call_count === 0) out.push('clean');
  return out;
}
