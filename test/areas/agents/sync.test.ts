// POST /v1/agents/sync and GET /v1/agents/blob/{sha256}, through the real server on SQLite or PostgreSQL.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { AGENT_SESSION_V1_SCHEMA } from '../../../src/areas/agents/agent-session-schema.js';
import { canonical, raw, rawNames, schemaFile, variant, type Doc } from '../sessions/fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
let readOnlyKey: string;
let ingestKey: string;

async function mintKey(t: Tenant, preset: 'ingest' | 'read-only' | 'full-access'): Promise<string> {
  const r = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `${preset}-${crypto.randomUUID()}`, preset },
  });
  expect(r.status).toBe(201);
  return r.body.data.plaintext_key;
}

const sync = (t: Tenant, body: unknown, token = t.factoryKey) =>
  gw.call('POST', '/v1/agents/sync', { token, appId: t.appId, body });
const list = (t: Tenant, query = 'repoScope=all&includeSubagents=1', token = t.loginToken) =>
  gw.call('GET', `/v1/sessions?${query}`, { token, appId: t.appId });
const detail = (t: Tenant, traceId: string, token = t.loginToken) =>
  gw.call('GET', `/v1/sessions/${traceId}`, { token, appId: t.appId });

/** The session as the list shows it (undefined when absent; typed loosely for short assertions). */
async function findSession(t: Tenant, sessionId: string): Promise<Doc> {
  const r = await list(t, 'repoScope=all&includeSubagents=1&limit=100');
  expect(r.status).toBe(200);
  return r.body.data.sessions.find((s: Doc) => s.sessionId === sessionId) as Doc;
}

function blobOf(bytes: Buffer, mediaType = 'image/png') {
  return {
    sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
    mediaType,
    bytes: bytes.length,
    data: bytes.toString('base64'),
  };
}

withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'free' } });
beforeAll(async () => {
  readOnlyKey = await mintKey(a, 'read-only');
  ingestKey = await mintKey(a, 'ingest');
});

describe('AgentSession v1 schema', () => {
  it('is the fixture schema, verbatim', () => {
    expect(AGENT_SESSION_V1_SCHEMA).toEqual(schemaFile());
  });
});

describe('POST /v1/agents/sync', () => {
  it('stores the canonical examples once each: the three tiers of one session land on one row', async () => {
    const docs = [
      canonical('downconverted-metrics'),
      canonical('downconverted-redacted'),
      canonical('full'),
      canonical('minimal'),
      canonical('subagent-redacted'),
    ];
    const r = await sync(a, { schemaVersion: 1, sessions: docs }, ingestKey);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      accepted: docs.map((d) => d.id),
      rejected: [],
      blobsStored: 0,
      rejectedBlobs: [],
      tenantTier: 'paid',
    });
    const all = await list(a);
    expect(all.body.data.total).toBe(3);
    const full = await findSession(a, canonical('full').id);
    // The last version sent (full tier) is the one stored: it has the title.
    expect(full).toMatchObject({
      title: 'Fix rate limiter window boundary',
      agentType: 'claude-code',
      branch: 'fix/rate-limit-window',
      repo: 'acme/acme-api',
      project: 'acme-api',
      turnCount: 2,
      userTurnCount: 1,
      toolCallCount: 3,
      errorCount: 1,
      rejectedToolCallCount: 0,
      models: ['claude-opus-4-8'],
      // priced by the server: 9 × 5 + 18230 × 0.5 + 2048 × 6.25 + 412 × 25 = 32260 µ$ (the client said 0.0389)
      costUsd: 0.03226,
      costStatus: 'complete',
      unpricedModels: [],
      startedAt: '2026-07-01T14:03:11.000Z',
      endedAt: '2026-07-01T14:41:52.000Z',
      durationMs: 2321000,
      origin: 'interactive',
      contextSourceVerification: 'absent',
      isSubagent: false,
    });
    // The PR the session names (outcome.prNumber), through the PR area; no webhook has told its state yet.
    expect(full.prOutcomes).toEqual([
      {
        prNumber: 481,
        prUrl: 'https://github.com/acme/acme-api/pull/481',
        ciGreen: { label: 'unknown', score: 0.5 },
        merged: { label: 'unknown', score: 0.5 },
        reverted: { label: 'unknown', score: 0.5 },
      },
    ]);
    const sub = await findSession(a, canonical('subagent-redacted').id);
    expect(sub).toMatchObject({
      isSubagent: true,
      parentSessionId: canonical('full').id,
      models: ['claude-haiku-4-5-20251001'],
    });
    // haiku: 3 × 1 + 950 × 0.1 + 120 × 5 = 3 + 95 + 600 = 698 µ$
    expect(sub.costUsd).toBe(0.000698);
  });

  it('takes the actor from the credential, never from the body', async () => {
    const s = await findSession(a, canonical('full').id);
    expect(s.actorId).toBe(a.ownerId);
    expect(s.actorId).not.toBe('member-7f3a');
  });

  it('is idempotent: the same session again is stored and counted once', async () => {
    const before = await list(a);
    const again = await sync(a, { schemaVersion: 1, sessions: [canonical('full'), canonical('full')] });
    expect(again.status).toBe(200);
    expect(again.body.data.accepted).toEqual([canonical('full').id, canonical('full').id]);
    const after = await list(a);
    expect(after.body.data.total).toBe(before.body.data.total);
    expect(after.body.data.originCounts).toEqual(before.body.data.originCounts);
    expect(after.body.data.repositories).toEqual(before.body.data.repositories);
    const s = await findSession(a, canonical('full').id);
    expect(s.costUsd).toBe(0.03226);
  });

  it('rejects a bad session with its index, id and reason and stores the others', async () => {
    const good = variant(canonical('minimal'), (d) => {
      d.id = 'good-1';
    });
    const noAgent = variant(canonical('minimal'), (d) => {
      d.id = 'bad-agent';
      delete d.agent;
    });
    const badDate = variant(canonical('minimal'), (d) => {
      d.id = 'bad-date';
      d.startedAt = 'yesterday';
    });
    const badTool = variant(canonical('full'), (d) => {
      d.id = 'bad-tool';
      d.turns[1].toolCalls[0].status = 'maybe';
    });
    const r = await sync(a, { schemaVersion: 1, sessions: [noAgent, good, badDate, 42, badTool] });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual(['good-1']);
    expect(r.body.data.rejected).toHaveLength(4);
    expect(r.body.data.rejected[0]).toMatchObject({ index: 0, id: 'bad-agent' });
    expect(r.body.data.rejected[0].reason).toContain('agent');
    expect(r.body.data.rejected[1]).toMatchObject({ index: 2, id: 'bad-date' });
    expect(r.body.data.rejected[1].reason).toContain('startedAt');
    expect(r.body.data.rejected[2]).toMatchObject({ index: 3, id: null });
    expect(r.body.data.rejected[3]).toMatchObject({ index: 4, id: 'bad-tool' });
    expect(r.body.data.rejected[3].reason).toContain('turns.1.toolCalls.0.status');
    expect(await findSession(a, 'good-1')).toBeDefined();
    expect(await findSession(a, 'bad-agent')).toBeUndefined();
    expect(await findSession(a, 'bad-tool')).toBeUndefined();
  });

  it('tolerates unknown fields where AgentSession v1 does', async () => {
    const doc = variant(canonical('full'), (d) => {
      d.id = 'future-fields';
      d.somethingNew = { x: 1 };
      d.agent.plugin = 'y';
      d.turns[1].toolCalls[0].newField = true;
    });
    const r = await sync(a, { schemaVersion: 1, sessions: [doc], futureTopLevel: true });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual(['future-fields']);
  });

  it('replaces a session with a later, longer version and ignores a stale shorter one', async () => {
    const base = canonical('full');
    const long = variant(base, (d) => {
      d.id = 'grows';
      d.turns.push({ index: 2, role: 'user', toolCalls: [], source: 'human', ts: '2026-07-01T14:40:00.000Z' });
      d.turns.push({
        index: 3,
        role: 'assistant',
        model: 'claude-opus-4-8',
        toolCalls: [],
        ts: '2026-07-01T14:41:00.000Z',
        usage: { in: 100, out: 100, cacheRead: 0, cacheCreate: 0 },
      });
    });
    const short = variant(base, (d) => {
      d.id = 'grows';
    });
    expect((await sync(a, { schemaVersion: 1, sessions: [short] })).status).toBe(200);
    expect((await findSession(a, 'grows')).turnCount).toBe(2);
    expect((await sync(a, { schemaVersion: 1, sessions: [long] })).status).toBe(200);
    let s = await findSession(a, 'grows');
    expect(s.turnCount).toBe(4);
    // 32260 + 100 × 5 + 100 × 25 = 35260 µ$; a second human turn is one steering turn
    expect(s.costUsd).toBe(0.03526);
    expect(s.steeringCount).toBe(1);
    expect((await sync(a, { schemaVersion: 1, sessions: [short] })).status).toBe(200);
    s = await findSession(a, 'grows');
    expect(s.turnCount).toBe(4);
    expect(s.costUsd).toBe(0.03526);
  });

  it('stores a session sent by concurrent syncs once', async () => {
    const before = await list(a);
    const docs = Array.from({ length: 3 }, (_, i) =>
      variant(canonical('full'), (d) => {
        d.id = `concurrent-${i}`;
      }),
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sync(a, { schemaVersion: 1, sessions: i % 2 ? [...docs].reverse() : docs })),
    );
    for (const r of results) expect(r.status).toBe(200);
    const after = await list(a);
    expect(after.body.data.total).toBe(before.body.data.total + 3);
    const repo = after.body.data.repositories.find((x: Doc) => x.repo === 'acme/acme-api');
    const all = await list(a, 'repo=acme/acme-api&limit=100');
    expect(repo.sessions).toBe(all.body.data.sessions.length);
  });

  it('assembles a session sent in chunk parts, in any order, counted once', async () => {
    const whole = raw('s18-medium-b84ed0f0.jsonl', 'full');
    const half = Math.floor(whole.turns.length / 2);
    const part = (n: 1 | 2): Doc =>
      variant(whole, (d) => {
        d.turns = n === 1 ? d.turns.slice(0, half) : d.turns.slice(half);
        d.events = d.events.filter((e: Doc) => (n === 1 ? (e.turnIndex ?? 0) < half : (e.turnIndex ?? 0) >= half));
        d.chunk = { part: n, of: 2, counts: { turns: d.turns.length, toolCalls: 0, errors: 0 } };
      });
    const totalBefore = (await list(a)).body.data.total;
    expect((await sync(a, { schemaVersion: 1, sessions: [part(2)] })).status).toBe(200);
    expect((await findSession(a, whole.id)).turnCount).toBe(whole.turns.length - half);
    expect((await sync(a, { schemaVersion: 1, sessions: [part(1)] })).status).toBe(200);
    expect((await sync(a, { schemaVersion: 1, sessions: [part(2)] })).status).toBe(200);
    const s = await findSession(a, whole.id);
    expect((await list(a)).body.data.total).toBe(totalBefore + 1);

    // The same session sent whole to another factory gives the same figures.
    expect((await sync(b, { schemaVersion: 1, sessions: [whole] })).status).toBe(200);
    const w = await findSession(b, whole.id);
    for (const field of [
      'turnCount',
      'toolCallCount',
      'errorCount',
      'userTurnCount',
      'costUsd',
      'costStatus',
      'models',
      'startedAt',
    ] as const) {
      expect(s[field], field).toEqual(w[field]);
    }
    const d = await detail(a, s.traceId);
    expect(d.body.data.chunk).toEqual({ of: 2, partsReceived: [1, 2] });
    expect(d.body.data.turns.map((t: Doc) => t.index)).toEqual(whole.turns.map((t: Doc) => t.index));
  });

  it('accepts every raw Claude Code transcript converted by the capture module', async () => {
    const names = rawNames();
    const docs = names.map((n) => raw(n, 'redacted'));
    const r = await sync(a, { schemaVersion: 1, sessions: docs });
    expect(r.status).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
    expect(new Set(r.body.data.accepted)).toEqual(new Set(docs.map((d) => d.id)));
    const unknownModel = docs.find((d) => d.models.includes('claude-fable-7'))!;
    const s = await findSession(a, unknownModel.id);
    expect(s.costStatus).toBe('unpriced');
    expect(s.unpricedModels).toEqual(['claude-fable-7']);
  });

  it('answers 400 for a body that is not a sync', async () => {
    for (const body of [
      { schemaVersion: 1, sessions: 'x' },
      { schemaVersion: 2, sessions: [canonical('minimal')] },
      { schemaVersion: 1, sessions: [] },
      { sessions: [canonical('minimal')] },
    ]) {
      const r = await sync(a, body);
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
    const notJson = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      raw: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('invalid_json');
  });

  it('answers 413 payload_too_large over each limit of API.md §8', async () => {
    const sessions = Array.from({ length: 51 }, (_, i) =>
      variant(canonical('minimal'), (d) => {
        d.id = `too-many-${i}`;
      }),
    );
    let r = await sync(a, { schemaVersion: 1, sessions });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', limit: 50 });

    const blobs = Array.from({ length: 65 }, (_, i) => blobOf(Buffer.from(`blob ${i}`)));
    r = await sync(a, { schemaVersion: 1, sessions: [canonical('minimal')], blobs });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', limit: 64 });

    const huge = JSON.stringify({
      schemaVersion: 1,
      sessions: [canonical('minimal')],
      pad: 'x'.repeat(8 * 1024 * 1024),
    });
    r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      raw: huge,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', limit: 8 * 1024 * 1024 });
    // Nothing of a refused request was stored.
    expect(await findSession(a, 'too-many-0')).toBeUndefined();

    // A 2 MiB blob exactly, inside a body bigger than the 1 MiB default, is accepted.
    const edge = blobOf(crypto.randomBytes(2 * 1024 * 1024));
    r = await sync(a, { schemaVersion: 1, sessions: [canonical('minimal')], blobs: [edge] });
    expect(r.status).toBe(200);
    expect(r.body.data.blobsStored).toBe(1);
  });

  it('rejects an oversized image alone (issue 15 §3): listed in rejectedBlobs, the sessions stored', async () => {
    // What the OuterLayer CLI sends at its own cap: 4,000,000 base64 characters (3,000,000 bytes) of a pasted
    // image, over the 2 MiB (2,097,152 bytes) a blob may be, with the one session that references it.
    const pasted = blobOf(crypto.randomBytes(3_000_000));
    expect(pasted.data.length).toBe(4_000_000);
    const small = blobOf(Buffer.from('a small image'));
    const session = variant(canonical('full'), (d) => {
      d.id = `oversized-image-${crypto.randomUUID()}`;
      d.turns[0].images = [{ mediaType: 'image/png', sha256: pasted.sha256, bytes: 3_000_000 }];
    });
    const r = await sync(a, { schemaVersion: 1, sessions: [session], blobs: [pasted, small] });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual([session.id]);
    expect(r.body.data.blobsStored).toBe(1);
    expect(r.body.data.rejectedBlobs).toHaveLength(1);
    expect(r.body.data.rejectedBlobs[0]).toMatchObject({ index: 0, sha256: pasted.sha256 });
    expect(r.body.data.rejectedBlobs[0].reason).toMatch(/^blob_too_large: .*limit 2097152 bytes/);
    const stored = await findSession(a, session.id);
    expect(stored).toBeDefined();
    // The small one is readable, the refused one is not.
    expect(
      (await gw.call('GET', `/v1/agents/blob/${small.sha256}`, { token: a.loginToken, appId: a.appId })).status,
    ).toBe(200);
    expect(
      (await gw.call('GET', `/v1/agents/blob/${pasted.sha256}`, { token: a.loginToken, appId: a.appId })).status,
    ).toBe(404);
    // One byte over 2 MiB is refused the same way; the limit itself is accepted (above).
    const over = blobOf(crypto.randomBytes(2 * 1024 * 1024 + 1));
    const again = await sync(a, { schemaVersion: 1, sessions: [canonical('minimal')], blobs: [over] });
    expect(again.status).toBe(200);
    expect(again.body.data.rejectedBlobs.map((x: Doc) => x.sha256)).toEqual([over.sha256]);
  });

  it('answers 401 without a credential or with an unknown one, and for another factory', async () => {
    const body = { schemaVersion: 1, sessions: [canonical('minimal')] };
    expect((await gw.call('POST', '/v1/agents/sync', { appId: a.appId, body })).status).toBe(401);
    const wrong = await gw.call('POST', '/v1/agents/sync', {
      token: 'sk_outerlayer_notarealkey',
      appId: a.appId,
      body,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    const otherFactory = await gw.call('POST', '/v1/agents/sync', {
      token: b.factoryKey,
      appId: a.appId,
      body: {
        schemaVersion: 1,
        sessions: [
          variant(canonical('minimal'), (d) => {
            d.id = 'from-b';
          }),
        ],
      },
    });
    expect(otherFactory.status).toBe(401);
    expect(await findSession(a, 'from-b')).toBeUndefined();
  });

  it('answers 403 with required_permission for a key without sessions.write', async () => {
    const r = await sync(a, { schemaVersion: 1, sessions: [canonical('minimal')] }, readOnlyKey);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.write' });
  });

  it("keeps factories apart: another factory's copy of a session is its own", async () => {
    const doc = variant(canonical('full'), (d) => {
      d.id = 'shared-id';
    });
    expect((await sync(a, { schemaVersion: 1, sessions: [doc] })).status).toBe(200);
    expect(
      (
        await sync(b, {
          schemaVersion: 1,
          sessions: [
            variant(doc, (d) => {
              d.title = 'B title';
            }),
          ],
        })
      ).status,
    ).toBe(200);
    expect((await findSession(a, 'shared-id')).title).toBe('Fix rate limiter window boundary');
    expect((await findSession(b, 'shared-id')).title).toBe('B title');
  });
});

describe('tool counters for the metrics area', () => {
  it('records per-tool counts of each stored session at ingest, replaced (not added) on a re-send', async () => {
    const t = await createTenant(gw, { plan: 'paid' });
    const tools = async () => {
      const r = await gw.call(
        'GET',
        '/v1/metrics/breakdown?by=tool&from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z',
        { token: t.loginToken, appId: t.appId },
      );
      expect(r.status).toBe(200);
      return r.body.data.rows.map((x: Doc) => [x.key, x.toolCalls, x.toolErrors, x.rejectedToolCalls]);
    };
    expect((await sync(t, { schemaVersion: 1, sessions: [canonical('full')] })).status).toBe(200);
    expect(await tools()).toEqual([
      ['Edit', 2, 1, 0],
      ['Read', 1, 0, 0],
    ]);
    const longer = variant(canonical('full'), (d) => {
      d.turns.push({
        index: 2,
        role: 'assistant',
        model: 'claude-opus-4-8',
        toolCalls: [{ name: 'Bash', isEdit: false, status: 'rejected' }],
      });
    });
    expect((await sync(t, { schemaVersion: 1, sessions: [longer, canonical('full')] })).status).toBe(200);
    expect(await tools()).toEqual([
      ['Edit', 2, 1, 0],
      ['Bash', 1, 0, 1],
      ['Read', 1, 0, 0],
    ]);
  });
});

describe('blobs', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), crypto.randomBytes(300)]);
  const good = blobOf(png);

  it('stores a blob after re-hashing it, rejects a mismatch per blob', async () => {
    const wrongHash = { ...blobOf(Buffer.from('other')), sha256: 'a'.repeat(64) };
    const wrongBytes = { ...blobOf(Buffer.from('sized')), bytes: 99 };
    const notHex = { ...blobOf(Buffer.from('x')), sha256: 'XYZ' };
    const doc = variant(canonical('full'), (d) => {
      d.id = 'with-image';
      d.turns[0].images = [{ mediaType: 'image/png', sha256: good.sha256, bytes: png.length }];
    });
    const r = await sync(a, { schemaVersion: 1, sessions: [doc], blobs: [wrongHash, good, wrongBytes, notHex, good] });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual(['with-image']);
    expect(r.body.data.blobsStored).toBe(1);
    expect(r.body.data.rejectedBlobs.map((x: Doc) => [x.index, x.sha256])).toEqual([
      [0, 'a'.repeat(64)],
      [2, wrongBytes.sha256],
      [3, 'XYZ'],
    ]);
    expect(r.body.data.rejectedBlobs[0].reason).toContain('does not match');

    const read = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { token: readOnlyKey, appId: a.appId });
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('image/png');
    expect(read.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(read.headers.etag).toBe(`"${good.sha256}"`);
    expect(Buffer.from(read.text, 'latin1').length).toBeGreaterThan(0);
    const res = await gw.app.inject({
      method: 'GET',
      url: `/v1/agents/blob/${good.sha256}`,
      headers: { authorization: `Bearer ${readOnlyKey}`, 'x-outerlayer-app-id': a.appId },
    });
    expect(res.rawPayload.equals(png)).toBe(true);

    const again = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, {
      token: readOnlyKey,
      appId: a.appId,
      headers: { 'if-none-match': `"${good.sha256}"` },
    });
    expect(again.status).toBe(304);

    const missing = await gw.call('GET', `/v1/agents/blob/${'a'.repeat(64)}`, { token: readOnlyKey, appId: a.appId });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('blob_not_found');

    // The transcript links the image to this route.
    const s = await findSession(a, 'with-image');
    const d = await detail(a, s.traceId);
    expect(d.body.data.turns[0].images).toEqual([
      { mediaType: 'image/png', sha256: good.sha256, bytes: png.length, url: `/v1/agents/blob/${good.sha256}` },
    ]);
  });

  it('serves a synced HTML or SVG blob as a sandboxed attachment, never as a page of the gateway', async () => {
    const html = blobOf(Buffer.from('<script>alert(document.cookie)</script>'), 'text/html');
    const svg = blobOf(
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    );
    const r = await sync(a, { schemaVersion: 1, sessions: [canonical('minimal')], blobs: [html, svg] });
    expect(r.status).toBe(200);
    expect(r.body.data.blobsStored).toBe(2);
    for (const blob of [html, svg]) {
      const res = await gw.call('GET', `/v1/agents/blob/${blob.sha256}`, { token: readOnlyKey, appId: a.appId });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe('attachment');
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    // A raster image stays inline (the session page shows it), still under the sandboxing policy.
    const png = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { token: readOnlyKey, appId: a.appId });
    expect(png.headers['content-disposition']).toBeUndefined();
    expect(png.headers['content-security-policy']).toContain('sandbox');
  });

  it("answers 404 for another factory's blob until that factory uploads the same bytes", async () => {
    const other = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { token: b.factoryKey, appId: b.appId });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('blob_not_found');
    const r = await sync(b, { schemaVersion: 1, sessions: [canonical('minimal')], blobs: [good] });
    expect(r.body.data.blobsStored).toBe(1);
    const now = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { token: b.factoryKey, appId: b.appId });
    expect(now.status).toBe(200);
  });

  it('answers 400 for a malformed sha256, 401 without a credential, 403 without sessions.read', async () => {
    const bad = await gw.call('GET', '/v1/agents/blob/nothex', { token: readOnlyKey, appId: a.appId });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_path_params');
    expect((await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { appId: a.appId })).status).toBe(401);
    const denied = await gw.call('GET', `/v1/agents/blob/${good.sha256}`, { token: ingestKey, appId: a.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.read' });
  });
});
