// Issue 42 §3: POST /v1/orgs/{org}/erasures erases a person from every factory of the org. After it, no table
// (enumerated from the database's own catalogue, every text and binary column, compressed documents decoded) and
// no blob file holds their email or name; the audit chain still verifies; costs stay exact; another person and
// another org are untouched. Owners only.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { sessionDoc, type SessionDoc } from '../metrics/sessions.js';

const EMAIL = 'erin.vale@example.org';
const NAME = 'Erin Vale';
const OTHER_TEXT = 'the other member keeps this prompt';
// claude-sonnet-4-5: $3 per million input tokens, $15 per million output tokens: 1000 in + 100 out = $0.0045.
const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 100 };
// A screenshot that shows the person's address (its bytes hold it, as a rendered page's would).
const PNG = Buffer.from(`\x89PNG screenshot of the settings page of ${EMAIL} (${NAME})`);
const IMAGE = crypto.createHash('sha256').update(PNG).digest('hex');

/** A full-tier session whose prompt, title and actor name the person, with their screenshot. */
function personal(id: string, startedAt: string): SessionDoc {
  const d = sessionDoc({ id, startedAt, repo: 'acme/api', turns: [turn], title: `${NAME} fixes login` }) as {
    captureTier: string;
    actor: Record<string, unknown>;
    turns: { role: string; text: string | null; images?: unknown[] }[];
  };
  d.captureTier = 'full';
  d.actor = { id: 'erin', email: EMAIL };
  d.turns[0]!.text = `Hi, I am ${NAME} <${EMAIL}>: please fix the login page for ${EMAIL}`;
  d.turns.find((t) => t.role === 'assistant')!.text = `Done, ${NAME}.`;
  d.turns.find((t) => t.role === 'assistant')!.images = [{ mediaType: 'image/png', sha256: IMAGE, bytes: PNG.length }];
  return d as unknown as SessionDoc;
}

describe('erasing a person', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  let second: string;
  let erin: { userId: string; loginToken: string };
  let other: { userId: string; loginToken: string };
  const admin = () => ({ token: gw.adminToken });
  // Owners' management keys holding people.erase (the orgs routes take management keys and dashboard sessions).
  let ownerKey: string;
  let bOwnerKey: string;
  const erase = (body: unknown, token = ownerKey, org = a.orgName) =>
    gw.call('POST', `/v1/orgs/${org}/erasures`, { token, body });
  const ownerKeyOf = async (t: Tenant) =>
    (
      await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
        ...admin(),
        body: { name: 'erasures', createdBy: t.ownerId, permissions: ['people.erase', 'audit.read'] },
      })
    ).body.data.key as string;
  const models = async (appId: string) =>
    (await gw.call('GET', '/v1/metrics/models?from=2026-09-01&to=2026-09-03', { token: a.loginToken, appId })).body.data
      .totals;

  beforeAll(async () => {
    ownerKey = await ownerKeyOf(a);
    bOwnerKey = await ownerKeyOf(b);
    second = (await gw.call('POST', `/v1/admin/orgs/${a.orgName}/apps`, { ...admin(), body: { name: 'second' } })).body
      .data.id;
    // Erin: an admin of org a (so her own actions are audit-logged), invited by email before.
    const invited = await gw.call('POST', `/v1/orgs/${a.orgName}/invitations`, {
      token: a.managementKey,
      body: { email: EMAIL, role: 'write' },
    });
    expect(invited.status).toBe(201);
    const user = (await gw.call('POST', '/v1/admin/users', { ...admin(), body: { email: EMAIL, name: NAME } })).body
      .data;
    await gw.call('POST', `/v1/admin/orgs/${a.orgName}/members`, {
      ...admin(),
      body: { userId: user.id, role: 'admin' },
    });
    erin = {
      userId: user.id,
      loginToken: (await gw.call('POST', `/v1/admin/users/${user.id}/login-tokens`, admin())).body.data.token,
    };
    other = await addMember(gw, a, 'write');
    // Keys named after her: one she made (audit actor: her), one the owner made (audit target: its name).
    for (const [token, name] of [
      [erin.loginToken, `${NAME} laptop`],
      [a.loginToken, `ci for ${EMAIL}`],
    ] as const) {
      const r = await gw.call('POST', '/v1/api-keys', { token, appId: a.appId, body: { name, preset: 'ingest' } });
      expect(r.status).toBe(201);
    }
    // Her sessions in both factories, the other member's in the first.
    for (const [appId, id] of [
      [a.appId, 'e1'],
      [a.appId, 'e2'],
      [second, 'e3'],
    ] as const) {
      const r = await gw.call('POST', '/v1/agents/sync', {
        token: erin.loginToken,
        appId,
        body: {
          schemaVersion: 1,
          sessions: [personal(id, `2026-09-0${id.at(-1)}T10:00:00Z`)],
          blobs: [{ sha256: IMAGE, mediaType: 'image/png', bytes: PNG.length, data: PNG.toString('base64') }],
        },
      });
      expect(r.status).toBe(200);
      expect(r.body.data.rejected).toEqual([]);
    }
    const mine = sessionDoc({ id: 'o1', startedAt: '2026-09-01T11:00:00Z', repo: 'acme/api', turns: [turn] }) as {
      captureTier: string;
      turns: { role: string; text: string | null }[];
    };
    mine.captureTier = 'full';
    mine.turns[0]!.text = OTHER_TEXT;
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: other.loginToken,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [mine] },
    });
    expect(r.status).toBe(200);
    // Her agent's own telemetry: one api_request event of a session seen only through it, and one cost point.
    const kv = (o: Record<string, string | number>) =>
      Object.entries(o).map(([key, v]) => ({
        key,
        value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v },
      }));
    const resource = { attributes: kv({ 'service.name': 'claude-code' }) };
    const at = '1793530860000000000'; // 2026-11-01T11:01:00Z
    const otlp = async (url: string, payload: unknown) => {
      const res = await gw.app.inject({
        method: 'POST',
        url,
        headers: {
          authorization: `Bearer ${a.factoryKey}`,
          'x-outerlayer-app-id': a.appId,
          'content-type': 'application/json',
        },
        payload: JSON.stringify(payload),
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await otlp('/v1/logs', {
      resourceLogs: [
        {
          resource,
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: at,
                  body: { stringValue: 'claude_code.api_request' },
                  attributes: kv({
                    'event.name': 'api_request',
                    'event.timestamp': '2026-11-01T11:01:00.000Z',
                    'session.id': 'tel-erin',
                    'user.email': EMAIL,
                    model: 'claude-sonnet-4-5',
                    cost_usd: 0.25,
                    input_tokens: 10,
                    output_tokens: 5,
                  }),
                },
              ],
            },
          ],
        },
      ],
    });
    await otlp('/v1/metrics', {
      resourceMetrics: [
        {
          resource,
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'claude_code.cost.usage',
                  sum: {
                    aggregationTemporality: 1,
                    isMonotonic: true,
                    dataPoints: [
                      {
                        asDouble: 0.25,
                        startTimeUnixNano: at,
                        timeUnixNano: at,
                        attributes: kv({ 'user.email': EMAIL, model: 'claude-sonnet-4-5' }),
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    // Org b: its own sessions, untouched by anything a does.
    await gw.call('POST', '/v1/agents/sync', {
      token: b.factoryKey,
      appId: b.appId,
      body: {
        schemaVersion: 1,
        sessions: [sessionDoc({ id: 'b1', startedAt: '2026-09-01T10:00:00Z', turns: [turn] })],
      },
    });
  });

  it('refuses a bad body, a non-owner, a missing credential and another org', async () => {
    for (const body of [
      {},
      { email: EMAIL, actorId: 'x' },
      { email: 'not-an-email' },
      { actorId: '' },
      { name: 'x' },
    ]) {
      const r = await erase(body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
    // A management key without people.erase is refused; an admin may not mint one with it.
    for (const token of [a.managementKey]) {
      const r = await erase({ email: EMAIL }, token);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'people.erase' });
    }
    const minted = await gw.call('POST', `/v1/admin/orgs/${a.orgName}/management-keys`, {
      ...admin(),
      body: { name: 'erin', createdBy: erin.userId, permissions: ['people.erase'] },
    });
    expect(minted.status).toBe(403);
    const none = await gw.call('POST', `/v1/orgs/${a.orgName}/erasures`, { body: { email: EMAIL } });
    expect(none.status).toBe(401);
    // Org b's owner names org a: refused before any lookup (the orgs area's rule), and nothing is erased.
    const foreign = await erase({ email: EMAIL }, bOwnerKey, a.orgName);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
    // An org that does not exist answers the same to a session of another org.
    expect((await erase({ email: EMAIL }, bOwnerKey, 'no-such-org')).status).toBe(403);
    // The org's only owner cannot be erased: it would leave the org without one.
    const owner = await erase({ actorId: a.ownerId });
    expect(owner.status).toBe(409);
    expect(owner.body.error.code).toBe('last_owner');
    // Her data is all still there.
    expect((await tracesOf(gw, [EMAIL])).length).toBeGreaterThan(5);
  });

  it('leaves no trace of the person in any table or blob, keeps costs, and the audit chain verifies', async () => {
    // The rollups exist before (a metrics read builds them), so the erasure must move them, not rebuild them.
    // First factory: e1, e2 and o1, one turn each = 3000 in, 300 out, 3 × $0.0045 = $0.0135; second: e3, $0.0045.
    const before = [await models(a.appId), await models(second)];
    expect(before[0]).toMatchObject({ turns: 3, inputTokens: 3000, outputTokens: 300 });
    expect(before[0].costUsd).toBeCloseTo(0.0135, 9);
    expect(before[1].costUsd).toBeCloseTo(0.0045, 9);
    expect((await gw.call('GET', `/v1/agents/blob/${IMAGE}`, { token: a.factoryKey, appId: a.appId })).status).toBe(
      200,
    );
    const bDump = await dumpOrgB(gw, b);
    const telemetryCost = async () =>
      (
        await gw.call('GET', '/v1/metrics/telemetry?from=2026-11-01&to=2026-11-01', {
          token: a.loginToken,
          appId: a.appId,
        })
      ).body.data.totals.costUsd;
    expect(await telemetryCost()).toBeCloseTo(0.25, 9);

    const r = await erase({ email: EMAIL.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      factories: 2,
      // e1, e2 and e3 synced, and tel-erin seen only through her telemetry.
      sessions: 4,
      credentialsDeleted: 1,
      credentialsRenamed: 2,
      invitations: 1,
      membership: true,
      account: true,
      blobsRemoved: 1,
    });
    expect(r.body.data.subject).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.data.telemetryEvents).toBe(1);
    // Her reported cost stays in the factory's telemetry totals, under a pseudonym.
    expect(await telemetryCost()).toBeCloseTo(0.25, 9);

    expect(await tracesOf(gw, [EMAIL, NAME, 'erin.vale'])).toEqual([]);
    // The other member's text and org b's rows are untouched.
    const kept = await tracesOf(gw, [OTHER_TEXT]);
    expect(kept).toContain(`session_documents.body: ${OTHER_TEXT}`);
    expect(kept).toContain(`sessions.title: ${OTHER_TEXT}`);
    expect(await dumpOrgB(gw, b)).toEqual(bDump);

    // Costs and turns read the same; the sessions now name no one.
    const after = [await models(a.appId), await models(second)];
    expect(after[0]).toMatchObject({ turns: 3, inputTokens: 3000, outputTokens: 300 });
    expect(after[0].costUsd).toBeCloseTo(0.0135, 9);
    expect(after[1].costUsd).toBeCloseTo(0.0045, 9);
    const e1 = await gw.call('GET', '/v1/sessions/e1', { token: a.loginToken, appId: a.appId });
    expect(e1.status).toBe(200);
    expect(JSON.stringify(e1.body)).not.toContain('Erin');
    expect((await gw.call('GET', `/v1/agents/blob/${IMAGE}`, { token: a.factoryKey, appId: a.appId })).status).toBe(
      404,
    );
    // Her login token is dead.
    expect((await gw.call('GET', '/v1/sessions', { token: erin.loginToken, appId: a.appId })).status).toBe(401);

    // The audit chain still verifies; the log shows a neutral name where she was, the others' names as before.
    const verify = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log/verify`, { token: a.managementKey });
    expect(verify.body.data).toMatchObject({ intact: true, firstBadRow: null });
    const log = (await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?pageSize=100`, { token: a.managementKey })).body
      .data as Record<string, string>[];
    const created = log.filter((e) => e.action_type === 'api_key.created');
    // The tenant's own 'full' key keeps its name; both keys named after her show the neutral name.
    expect(created.map((e) => e.target_identifier).sort()).toEqual(['erased person', 'erased person', 'full']);
    const owner = `Owner ${a.orgName.slice(4)}`;
    expect(created.map((e) => e.actor_name).sort()).toEqual([owner, owner, 'erased person'].sort());
    const erased = log.find((e) => e.action_type === 'person.erased')!;
    expect(erased).toMatchObject({
      target_type: 'person',
      target_id: r.body.data.subject,
      actor_type: 'management_key',
      actor_label: 'erasures',
    });
    expect(erased.details_preview).toContain('"credentialsRenamed":2');

    // Again: the same answer, and nothing more to find.
    const again = await erase({ actorId: EMAIL });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(r.body.data);
    expect(await tracesOf(gw, [EMAIL, NAME])).toEqual([]);
  });
});

/**
 * Every table the database lists, every column of every row, and every blob file, as lower-case text (binary
 * decoded when it can be), keyed by where it was found: `table.column` or `blob:<file>`.
 */
async function dump(gw: TestGateway): Promise<Map<string, string>> {
  const db = gw.app.attest.db;
  const tables = usingPostgres
    ? (
        await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      ).rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  expect(tables.length).toBeGreaterThan(60);
  const out = new Map<string, string>();
  const add = (where: string, text: string) => out.set(where, `${out.get(where) ?? ''}\n${text.toLowerCase()}`);
  for (const { name } of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)).rows;
    for (const row of rows) for (const [column, v] of Object.entries(row)) add(`${name}.${column}`, textOf(v));
  }
  const dir = path.join(gw.app.attest.config.dataDir, 'blobs');
  if (fs.existsSync(dir))
    for (const f of fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
      if (f.isFile()) add(`blob:${f.name}`, textOf(fs.readFileSync(path.join(f.parentPath, f.name))));
  return out;
}

/** Where (table.column or blob file) any of the needles appears. */
async function tracesOf(gw: TestGateway, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [where, text] of await dump(gw))
    for (const n of needles) if (text.includes(n.toLowerCase())) found.push(`${where}: ${n}`);
  return found.sort();
}

function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (!(v instanceof Uint8Array)) return String(v);
  const buf = Buffer.from(v);
  const out = [buf.toString('latin1')];
  for (const decode of [zlib.brotliDecompressSync, zlib.gunzipSync, zlib.inflateSync]) {
    try {
      out.push(decode(buf).toString('utf8'));
    } catch {
      // not this encoding
    }
  }
  return out.join('\n');
}

/** What org b's factory holds, to compare before and after. */
async function dumpOrgB(gw: TestGateway, b: Tenant) {
  const db = gw.app.attest.db;
  return {
    sessions: await db.selectFrom('sessions').selectAll().where('app_id', '=', b.appId).execute(),
    audit: await db.selectFrom('audit_log').selectAll().where('org_id', '=', b.orgId).orderBy('seq').execute(),
    identities: await db.selectFrom('audit_identities').selectAll().where('org_id', '=', b.orgId).execute(),
  };
}
