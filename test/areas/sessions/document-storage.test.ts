// Where a session's document lands in the store: a large real transcript is stored (Brotli, several KB) and
// read back whole. On PostgreSQL the body is kept out of line without TOAST's pglz pass (migration 0021): a
// Brotli body never compresses further, and the attempt cost 5% of the database server's CPU during an ingest.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { raw, type Doc } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
withGatewayAndTenants((s) => ({ gw, a } = s), { a: { plan: 'paid' } });

const LARGE = 's07-large-b2e4caca.jsonl';

async function storeLarge(): Promise<{ doc: Doc; traceId: string }> {
  const doc = raw(LARGE);
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: a.factoryKey,
    appId: a.appId,
    body: { schemaVersion: 1, sessions: [doc] },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
  const listed = await gw.call('GET', '/v1/sessions?repoScope=all', { token: a.factoryKey, appId: a.appId });
  expect(listed.status).toBe(200);
  const row = listed.body.data.sessions.find((s: Doc) => s.sessionId === doc.id);
  expect(row).toBeDefined();
  return { doc, traceId: row.traceId as string };
}

describe('stored session documents', () => {
  it('a large transcript is stored and read back whole', async () => {
    const { doc, traceId } = await storeLarge();
    const d = await gw.call('GET', `/v1/sessions/${traceId}`, { token: a.factoryKey, appId: a.appId });
    expect(d.status).toBe(200);
    expect(d.body.data.turns).toEqual(doc.turns);
    expect(d.body.data.turns.length).toBeGreaterThan(20);

    if (usingPostgres) {
      const db = gw.app.attest.db;
      // The column is EXTERNAL: out of line, never compressed again by TOAST.
      const storage = await sql<{ attstorage: string }>`select attstorage from pg_attribute
        where attrelid = to_regclass('session_documents') and attname = 'body'`.execute(db);
      expect(storage.rows).toEqual([{ attstorage: 'e' }]);
      // This body is over TOAST's 2 KB threshold: without 0021, pglz would have been run over it (and given up).
      const stored = await sql<{ bytes: number }>`select octet_length(body) as bytes from session_documents
        where session_id = ${traceId}`.execute(db);
      expect(stored.rows).toHaveLength(1);
      expect(Number(stored.rows[0]!.bytes)).toBeGreaterThan(2048);
    }
  });
});
