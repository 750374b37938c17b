// Issue 42 §2: DELETE /v1/sessions/{id} and DELETE /v1/artifacts/{id} remove every copy: rows, counters and
// rollups (totals checked against numbers worked out by hand), PR links, tombstones answering 410, blobs counted
// by reference across factories, the audit log. Owners only; another factory's credential sees nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory } from '../../helpers/cross-tenant.js';
import { ingest, sessionDoc, type SessionDoc } from '../metrics/sessions.js';
import { artifactBody, keyWith, sha256 } from '../artifacts/helpers.js';
import { newItem } from '../work-items/helpers.js';

const PNG = Buffer.from('\x89PNG shared screenshot bytes for the lifecycle test');
const IMAGE = sha256(PNG);
const blob = { sha256: IMAGE, mediaType: 'image/png', bytes: PNG.length, data: PNG.toString('base64') };
// claude-sonnet-4-5: $3 per million input tokens, $15 per million output tokens.
const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 100 };

/** A full-tier session whose first assistant turn shows the shared image. */
function withImage(doc: SessionDoc): SessionDoc {
  const d = structuredClone(doc) as { captureTier: string; turns: { role: string; images?: unknown[] }[] };
  d.captureTier = 'full';
  d.turns.find((t) => t.role === 'assistant')!.images = [{ mediaType: 'image/png', sha256: IMAGE, bytes: PNG.length }];
  return d as unknown as SessionDoc;
}

async function syncWithBlob(gw: TestGateway, t: Tenant, docs: SessionDoc[]) {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: t.factoryKey,
    appId: t.appId,
    body: { schemaVersion: 1, sessions: docs, blobs: [blob] },
  });
  if (r.status !== 200 || r.body.data.rejected.length) throw new Error(`sync: ${r.status} ${r.text}`);
}

describe('deleting sessions and artifacts', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  const on = (t: Tenant, token = t.factoryKey) => ({ token, appId: t.appId });
  const traceOf = async (t: Tenant, sessionId: string) =>
    (await gw.call('GET', `/v1/sessions/${sessionId}`, on(t))).body.data.traceId as string;
  const models = async (t: Tenant) =>
    (await gw.call('GET', '/v1/metrics/models?from=2026-09-01&to=2026-09-03', on(t, t.loginToken))).body.data.totals;
  const overviewSessions = async (t: Tenant) =>
    (await gw.call('GET', '/v1/metrics/overview?from=2026-09-01&to=2026-09-03', on(t, t.loginToken))).body.data.tiles
      .sessions.current;

  beforeAll(async () => {
    // s1 (2 turns, image) and s2 (1 turn, the same image) on Sept 1 and 2; s3 (3 turns) on Sept 3 names PR #7.
    await syncWithBlob(gw, a, [
      withImage(sessionDoc({ id: 's1', startedAt: '2026-09-01T10:00:00Z', repo: 'acme/api', turns: [turn, turn] })),
      withImage(sessionDoc({ id: 's2', startedAt: '2026-09-02T10:00:00Z', repo: 'acme/api', turns: [turn] })),
    ]);
    await ingest(gw, on(a), [
      sessionDoc({
        id: 's3',
        startedAt: '2026-09-03T10:00:00Z',
        repo: 'acme/api',
        turns: [turn, turn, turn],
        prNumber: 7,
      }),
    ]);
    // Another factory holds the same image bytes (content-addressed: one blob in the store).
    await syncWithBlob(gw, b, [
      withImage(sessionDoc({ id: 'b1', startedAt: '2026-09-01T10:00:00Z', repo: 'acme/api', turns: [turn] })),
    ]);
  });

  it('refuses without sessions.delete (only owners have it), without a credential, and across factories', async () => {
    const s1 = await traceOf(a, 's1');
    const ingestKey = (
      await gw.call('POST', '/v1/api-keys', { ...on(a, a.loginToken), body: { name: 'ci', preset: 'ingest' } })
    ).body.data.plaintext_key as string;
    const admin = await addMember(gw, a, 'admin');
    for (const token of [ingestKey, admin.loginToken]) {
      const r = await gw.call('DELETE', `/v1/sessions/${s1}`, on(a, token));
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.delete' });
    }
    // An admin cannot mint a key with it either.
    const mint = await gw.call('POST', '/v1/api-keys', {
      ...on(a, admin.loginToken),
      body: { name: 'x', permissions: ['sessions.delete'] },
    });
    expect(mint.status).toBe(403);
    expect((await gw.call('DELETE', `/v1/sessions/${s1}`, { appId: a.appId })).status).toBe(401);
    // Another org's factory and a sibling factory of a's org: a's session does not exist for them.
    for (const [who, auth] of foreignCallers(b, await siblingFactory(gw, a))) {
      const foreign = await gw.call('DELETE', `/v1/sessions/${s1}`, auth);
      expect(foreign.status, who).toBe(404);
      expect(foreign.body.error.code).toBe('session_not_found');
    }
    expect((await gw.call('GET', `/v1/sessions/${s1}`, on(a))).status).toBe(200);
    expect((await gw.call('DELETE', '/v1/sessions/no-such-session', on(a))).status).toBe(404);
  });

  it('deletes a session: metrics stay exact, the shared image stays while named, a read answers 410', async () => {
    // Rollups exist before the deletion (a metrics read builds them), so the deletion must adjust them.
    expect(await models(a)).toMatchObject({ turns: 6, inputTokens: 6000, outputTokens: 600 });
    expect(await overviewSessions(a)).toBe(3);

    const s1 = await traceOf(a, 's1');
    const del = await gw.call('DELETE', `/v1/sessions/${s1}`, on(a));
    expect(del.status).toBe(204);

    // Left: s2 (1 turn) and s3 (3 turns) = 4 turns, 4000 in, 400 out; cost 4 × (1000×3 + 100×15)/1e6 = $0.018.
    const totals = await models(a);
    expect(totals).toMatchObject({ turns: 4, inputTokens: 4000, outputTokens: 400 });
    expect(totals.costUsd).toBeCloseTo(0.018, 9);
    expect(await overviewSessions(a)).toBe(2);
    const list = await gw.call('GET', '/v1/sessions?repoScope=all', on(a, a.loginToken));
    expect(list.body.data.sessions.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual(['s2', 's3']);

    for (const id of [s1, 's1']) {
      const gone = await gw.call('GET', `/v1/sessions/${id}`, on(a));
      if (id === s1) {
        expect(gone.status).toBe(410);
        expect(gone.body.error).toMatchObject({ code: 'session_deleted', reason: 'request' });
      } else expect(gone.status).toBe(404);
    }
    expect((await gw.call('DELETE', `/v1/sessions/${s1}`, on(a))).status).toBe(410);
    // s2 still names the image: the factory still reads it.
    expect((await gw.call('GET', `/v1/agents/blob/${IMAGE}`, on(a))).status).toBe(200);
    // b saw nothing change.
    expect(await models(b)).toMatchObject({ turns: 1, inputTokens: 1000 });
  });

  it('releases a blob only when no factory holds it any more', async () => {
    const s2 = await traceOf(a, 's2');
    expect((await gw.call('DELETE', `/v1/sessions/${s2}`, on(a))).status).toBe(204);
    expect((await gw.call('GET', `/v1/agents/blob/${IMAGE}`, on(a))).status).toBe(404);
    // Factory b still names the same bytes: they stay in the store and readable to b.
    expect(await gw.app.attest.blobs.has(IMAGE)).toBe(true);
    expect((await gw.call('GET', `/v1/agents/blob/${IMAGE}`, on(b))).status).toBe(200);
    const b1 = await traceOf(b, 'b1');
    expect((await gw.call('DELETE', `/v1/sessions/${b1}`, on(b))).status).toBe(204);
    expect(await gw.app.attest.blobs.has(IMAGE)).toBe(false);
    expect(await models(b)).toMatchObject({ turns: 0, inputTokens: 0 });
  });

  it("takes a session off its pull request's evidence", async () => {
    const pr = () => gw.call('GET', '/v1/prs/acme/api/7', on(a, a.loginToken));
    const before = await pr();
    expect(before.status).toBe(200);
    const s3 = await traceOf(a, 's3');
    expect(before.body.data.sessions).toBe(1);
    expect(before.body.data.sessionList.map((s: { traceId: string }) => s.traceId)).toEqual([s3]);
    // 3 turns × $0.0045
    expect(before.body.data.costUsd).toBeCloseTo(0.0135, 9);
    expect((await gw.call('DELETE', `/v1/sessions/s3`, on(a))).status).toBe(204);
    const after = await pr();
    if (after.status === 200) {
      expect(after.body.data).toMatchObject({ sessions: 0, costUsd: 0, sessionList: [] });
    } else expect(after.body.error.code).toBe('pull_request_not_found');
    expect(await models(a)).toMatchObject({ turns: 0, inputTokens: 0, outputTokens: 0 });
    expect(await overviewSessions(a)).toBe(0);
  });

  it('deletes an artifact and its bytes (owners only), answering 410 afterwards', async () => {
    const content = Buffer.from(`artifact ${crypto.randomUUID()}`);
    const created = await gw.call('POST', '/v1/artifacts', { ...on(a), body: artifactBody(content) });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const writer = await keyWith(gw, a, ['artifacts.read', 'artifacts.write']);
    const denied = await gw.call('DELETE', `/v1/artifacts/${id}`, on(a, writer));
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('artifacts.delete');
    expect((await gw.call('DELETE', `/v1/artifacts/${id}`, on(b))).status).toBe(404);
    expect((await gw.call('DELETE', `/v1/artifacts/${id}`, { appId: a.appId })).status).toBe(401);

    expect((await gw.call('DELETE', `/v1/artifacts/${id}`, on(a))).status).toBe(204);
    expect(await gw.app.attest.blobs.has(sha256(content))).toBe(false);
    const read = await gw.call('GET', `/v1/artifacts/${id}`, on(a));
    expect(read.status).toBe(410);
    expect(read.body.error.code).toBe('artifact_deleted');
    expect((await gw.call('GET', `/v1/artifacts/${id}/content`, on(a))).status).toBe(410);
    expect((await gw.call('DELETE', `/v1/artifacts/${id}`, on(a))).status).toBe(410);
    expect((await gw.call('DELETE', `/v1/artifacts/${crypto.randomUUID()}`, on(a))).status).toBe(404);
  });

  it("deletes a work item's evidence: every artifact its list reaches, replaced ones too; item stays", async () => {
    const item = await newItem(gw, a);
    const other = await newItem(gw, a);
    const upload = async (workItemId: string, fields: Record<string, unknown> = {}) => {
      const bytes = Buffer.from(`evidence ${crypto.randomUUID()}`);
      const r = await gw.call('POST', '/v1/artifacts', {
        ...on(a),
        body: artifactBody(bytes, { workItemId, ...fields }, { unanchored: true }),
      });
      expect(r.status, r.text).toBe(201);
      return { id: r.body.data.id as string, sha: sha256(bytes), clientId: r.body.data.clientArtifactId as string };
    };
    const first = await upload(item.id);
    const replaced = await upload(item.id);
    const replacement = await upload(item.id, { supersedes: replaced.clientId });
    const kept = await upload(other.id);
    const path = `/v1/work-items/${item.number}/artifacts`;

    const writer = await keyWith(gw, a, ['artifacts.read', 'artifacts.write']);
    const denied = await gw.call('DELETE', path, on(a, writer));
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('artifacts.delete');
    expect((await gw.call('DELETE', path, { appId: a.appId })).status).toBe(401);
    const foreign = await gw.call('DELETE', `/v1/work-items/${item.id}/artifacts`, on(b));
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('work_item_not_found');
    expect((await gw.call('GET', `/v1/artifacts/${first.id}`, on(a))).status).toBe(200);

    const res = await gw.call('DELETE', path, on(a));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { workItemId: item.id, artifacts: 3 } });
    for (const x of [first, replaced, replacement]) {
      const read = await gw.call('GET', `/v1/artifacts/${x.id}`, on(a));
      expect(read.status).toBe(410);
      expect(await gw.app.attest.blobs.has(x.sha)).toBe(false);
    }
    expect((await gw.call('GET', path, on(a))).body.data).toEqual([]);
    expect((await gw.call('GET', `/v1/work-items/${item.id}`, on(a))).status).toBe(200);
    expect((await gw.call('GET', `/v1/artifacts/${kept.id}`, on(a))).status).toBe(200);
    expect(await gw.app.attest.blobs.has(kept.sha)).toBe(true);
    expect((await gw.call('DELETE', path, on(a))).body.data.artifacts).toBe(0);
    const missing = await gw.call('DELETE', '/v1/work-items/999999/artifacts', on(a));
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('work_item_not_found');
  });

  it('audit-logs each deletion with who and which id, never the content, and the chain verifies', async () => {
    const log = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?pageSize=100`, { token: a.managementKey });
    expect(log.status).toBe(200);
    const rows = log.body.data as { action_type?: string; actionType?: string; target?: unknown }[];
    const text = JSON.stringify(rows);
    expect(text).toContain('session.deleted');
    expect(text).toContain('artifact.deleted');
    expect(text).toContain('work_item.evidence_deleted');
    expect(text).not.toContain('acme/api');
    const verify = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log/verify`, { token: a.managementKey });
    expect(verify.body.data.intact).toBe(true);
  });
  it('the blob sweep removes blobs no factory holds once past the grace period, at most once a day', async () => {
    const { blobs, config } = gw.app.attest;
    const fileOf = (sha: string) => path.join(config.dataDir, 'blobs', sha.slice(0, 2), sha);
    const age = (sha: string, ms: number) => {
      const at = new Date(gw.clock.now() - ms);
      fs.utimesSync(fileOf(sha), at, at);
    };
    const put = async (text: string) => {
      const bytes = Buffer.from(`${text} ${crypto.randomUUID()}`);
      await blobs.put(sha256(bytes), bytes);
      return sha256(bytes);
    };
    // Held by b's artifact, two days old; an orphan two days old (a crash between put and commit); an orphan
    // written an hour ago (an upload whose row is not committed yet).
    const held = Buffer.from(`held by b ${crypto.randomUUID()}`);
    const created = await gw.call('POST', '/v1/artifacts', { ...on(b), body: artifactBody(held) });
    expect(created.status).toBe(201);
    age(sha256(held), 2 * 86_400_000);
    const orphan = await put('orphan');
    age(orphan, 2 * 86_400_000);
    const young = await put('in flight');
    age(young, 3_600_000);

    expect((await gw.app.attest.housekeeping.run()).blobs).toBe(1);
    expect(fs.existsSync(fileOf(orphan))).toBe(false);
    expect(fs.existsSync(fileOf(young))).toBe(true);
    const content = await gw.call('GET', `/v1/artifacts/${created.body.data.id}/content`, on(b));
    expect(content.status).toBe(200);
    expect(content.text).toBe(held.toString());

    // Within the day the store is not listed again; a day later the one-hour-old orphan has aged out.
    age(young, 25 * 3_600_000);
    expect((await gw.app.attest.housekeeping.run()).blobs).toBe(0);
    gw.clock.advance(86_400_000);
    expect((await gw.app.attest.housekeeping.run()).blobs).toBe(1);
    expect(fs.existsSync(fileOf(young))).toBe(false);
    expect(fs.existsSync(fileOf(sha256(held)))).toBe(true);
  });
});
