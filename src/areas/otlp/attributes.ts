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
    const values = new Map<string, string>();
    for (const e of [...events].sort((x, y) => x.ts - y.ts || x.seq - y.seq))
      for (const [name, v] of Object.entries(e.data))
        if (name.startsWith(PREFIX) && name.length > PREFIX.length && name.length <= PREFIX.length + 200)
          if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values.set(name, String(v));
    // A telemetry session has no subagent part: its key is its id (sessions/document.ts sessionKeyOf).
    const sessionKey = sessionKeyPart(sessionId);
    for (const [name, value] of [...values].sort(([x], [y]) => (x < y ? -1 : 1)).slice(0, MAX_SESSION_ATTRIBUTES))
      rows.push({ app_id: appId, session_key: sessionKey, key: name.slice(PREFIX.length), value, updated_at: now });
  }
  return rows;
}

/** A deleted session's attributes go with it (sessions/delete.ts, in the caller's transaction). */
export function forgetSessionAttributes(db: Db, appId: string, sessionKeys: readonly string[]): Promise<void> {
  return deleteSessionAttributes(db, appId, sessionKeys);
}
