// The custom resource attributes of the sessions a logs export builds (OTEL_RESOURCE_ATTRIBUTES such as
// team=payments, kept on each event as `resource.<key>` by events.ts), one row per session and key, for the
// budgets scoped by an attribute, and their deletion with their session. The SQL is the store's.
import type { Db } from '../../db/connection.js';
import { sessionKeyPart } from '../sessions/document.js';
import type { AgentEvent } from './events.js';
import { deleteSessionAttributes, type SessionAttributesTable } from './store.js';

const PREFIX = 'resource.';
/** At most this many attributes are kept of a session (a resource rarely carries more than a handful). */
export const MAX_SESSION_ATTRIBUTES = 32;

/** `bySession`: each session's events of this request, keyed by JSON [agent, sessionId]. The latest value wins. */
export function sessionAttributes(
  appId: string,
  bySession: ReadonlyMap<string, readonly AgentEvent[]>,
  now: number,
): SessionAttributesTable[] {
  const rows: SessionAttributesTable[] = [];
  for (const [key, events] of bySession) {
    const [, sessionId] = JSON.parse(key) as [string, string];
    // The value of the latest event by time, then sequence (of equals, the one later in the request), in one pass.
    const values = new Map<string, { value: string; ts: number; seq: number }>();
    for (const e of events)
      for (const name in e.data) {
        if (!name.startsWith(PREFIX) || name.length === PREFIX.length || name.length > PREFIX.length + 200) continue;
        const v = e.data[name];
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
        const held = values.get(name);
        if (!held || e.ts > held.ts || (e.ts === held.ts && e.seq >= held.seq))
          values.set(name, { value: String(v), ts: e.ts, seq: e.seq });
      }
    // A telemetry session has no subagent part: its key is its id (sessions/document.ts sessionKeyOf).
    const sessionKey = sessionKeyPart(sessionId);
    for (const [name, { value }] of [...values].sort(([x], [y]) => (x < y ? -1 : 1)).slice(0, MAX_SESSION_ATTRIBUTES))
      rows.push({ app_id: appId, session_key: sessionKey, key: name.slice(PREFIX.length), value, updated_at: now });
  }
  return rows;
}

/** A deleted session's attributes go with it (sessions/delete.ts, in the caller's transaction). */
export function forgetSessionAttributes(db: Db, appId: string, sessionKeys: readonly string[]): Promise<void> {
  return deleteSessionAttributes(db, appId, sessionKeys);
}
