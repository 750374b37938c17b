// The traceIds the gateway gives new sessions are UUIDv7 (RFC 9562 §5.7): the creation's wall-clock
// milliseconds in the first 48 bits, then version 7, the variant, and counter/random bits. They stay valid
// uuids for GET /v1/sessions/{traceId} and sort in the order the sessions were created, which is what keeps
// the id indexes appending (docs/performance.md, Ingest).
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { titledSession } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

withGatewayAndTenants((s) => ({ gw, a, b } = s));

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function session(id: string, startedAt: string, title = `trace id check ${id}`) {
  return titledSession({ id, startedAt, title });
}

const sync = (t: Tenant, sessions: unknown[]) =>
  gw.call('POST', '/v1/agents/sync', { token: t.factoryKey, appId: t.appId, body: { schemaVersion: 1, sessions } });

async function traceIdOf(t: Tenant, sessionId: string): Promise<string | undefined> {
  const r = await gw.call(
    'GET',
    '/v1/sessions?repoScope=all&limit=100&from=2026-01-01T00:00:00.000Z&to=2027-01-01T00:00:00.000Z',
    { token: t.loginToken, appId: t.appId },
  );
  expect(r.status).toBe(200);
  return r.body.data.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId)?.traceId;
}

/** The milliseconds a UUIDv7 carries: its first 12 hex digits. */
const millisOf = (uuid: string) => parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);

describe('traceIds of new sessions', () => {
  it('are UUIDv7 stamped with the time they were created, in the order they were created', async () => {
    const before = Date.now();
    // Started in this order, but the later sync carries the earliest start: the id follows creation, not startedAt.
    expect(
      (
        await sync(a, [
          session('trace-first', '2026-06-02T10:00:00.000Z'),
          session('trace-second', '2026-06-02T11:00:00.000Z'),
        ])
      ).status,
    ).toBe(200);
    expect((await sync(a, [session('trace-third', '2026-06-01T09:00:00.000Z')])).status).toBe(200);
    const after = Date.now();

    const ids = [
      await traceIdOf(a, 'trace-first'),
      await traceIdOf(a, 'trace-second'),
      await traceIdOf(a, 'trace-third'),
    ];
    for (const id of ids) {
      expect(id).toMatch(UUID_V7);
      expect(millisOf(id!)).toBeGreaterThanOrEqual(before);
      expect(millisOf(id!)).toBeLessThanOrEqual(after);
    }
    expect(new Set(ids).size).toBe(3);
    // The third session was created by a later request than the other two.
    expect(ids[2]! > ids[0]! && ids[2]! > ids[1]!).toBe(true);

    // Such an id is a valid path parameter and reads its own session.
    const detail = await gw.call('GET', `/v1/sessions/${ids[2]}`, { token: a.loginToken, appId: a.appId });
    expect(detail.status).toBe(200);
    expect(detail.body.data.sessionId).toBe('trace-third');
    // Another factory's credential reads nothing of it.
    const other = await gw.call('GET', `/v1/sessions/${ids[2]}`, { token: b.loginToken, appId: b.appId });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('session_not_found');
  });

  it('keep the id a session was given when it is synced again', async () => {
    expect((await sync(a, [session('trace-again', '2026-06-03T10:00:00.000Z')])).status).toBe(200);
    const first = await traceIdOf(a, 'trace-again');
    expect(first).toMatch(UUID_V7);
    const again = session('trace-again', '2026-06-03T10:00:00.000Z', 'a new title for the same session');
    expect((await sync(a, [again])).status).toBe(200);
    const listed = await gw.call('GET', `/v1/sessions/${first}`, { token: a.loginToken, appId: a.appId });
    expect(listed.status).toBe(200);
    expect(listed.body.data.title).toBe('a new title for the same session');
    expect(await traceIdOf(a, 'trace-again')).toBe(first);
  });
});
