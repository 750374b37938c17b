// GET /v1/work-items/{workItemId}/artifacts: by id or number; PR-anchored and session-linked artifacts;
// oldest first; replaced ones left out; at most 200 (the oldest) with pagination.truncated.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { artifactBody, at, keyWith, type ArtifactFields } from './helpers.js';

interface Item {
  id: string;
  number: number;
}

describe('GET /v1/work-items/{workItemId}/artifacts', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  let auth: { token: string; appId: string };

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
  beforeAll(() => {
    auth = { token: t.factoryKey, appId: t.appId };
  });

  async function newItem(pullRequests: { repository: string; number: number }[] = []): Promise<Item> {
    const res = await gw.call('POST', '/v1/work-items', {
      ...auth,
      body: { tracker: 'local', trackerKey: crypto.randomUUID(), title: 'an item' },
    });
    expect(res.status).toBe(201);
    for (const pr of pullRequests) {
      const declared = await gw.call('POST', `/v1/work-items/${res.body.data.id}/pull-requests`, { ...auth, body: pr });
      expect(declared.status).toBe(201);
    }
    return { id: res.body.data.id, number: res.body.data.number };
  }

  async function upload(fields: ArtifactFields, unanchored = true): Promise<string> {
    const res = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(Buffer.from(crypto.randomUUID()), fields, { unanchored }),
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as string;
  }

  const list = (ref: string | number, a: { token: string; appId: string } = auth) =>
    gw.call('GET', `/v1/work-items/${ref}/artifacts`, a);
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((a) => a.id);

  it('lists artifacts of a declared PR, of the item, and of a session linked to it, oldest first', async () => {
    const repo = `acme/wi-${crypto.randomBytes(3).toString('hex')}`;
    const item = await newItem([{ repository: repo, number: 7 }]);
    const session = `sess-${crypto.randomUUID()}`;
    // Uploaded out of order: the list follows emittedAt.
    const fromSession = await upload({
      session: { sessionId: session, turnIndex: 9 },
      emittedAt: at(30),
      filename: 'late.png',
    });
    const onPr = await upload({ repository: repo, prNumber: 7, emittedAt: at(10), filename: 'pr.png' });
    const onItem = await upload({
      workItemId: item.id,
      session: { sessionId: session, turnIndex: 1 },
      emittedAt: at(20),
      filename: 'item.png',
    });
    const onItemByNumber = await upload({ workItemId: String(item.number), emittedAt: at(5), filename: 'first.png' });
    // Not the item's: another PR of the repository, another session, another item.
    await upload({ repository: repo, prNumber: 8, emittedAt: at(1) });
    await upload({ session: { sessionId: `sess-${crypto.randomUUID()}` }, emittedAt: at(2) });
    const otherItem = await newItem();
    await upload({ workItemId: otherItem.id, session: { sessionId: `sess-${crypto.randomUUID()}` }, emittedAt: at(3) });

    const byId = await list(item.id);
    expect(byId.status).toBe(200);
    expect(ids(byId)).toEqual([onItemByNumber, onPr, onItem, fromSession]);
    expect(byId.body.pagination).toEqual({ truncated: false });
    const first = byId.body.data[0];
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        'id',
        'clientArtifactId',
        'kind',
        'caption',
        'filename',
        'criterionId',
        'prNumber',
        'repository',
        'emittedAt',
        'url',
      ]),
    );
    expect(first.url).toBe(`http://attest.test/artifacts/${first.id}`);

    const byNumber = await list(item.number);
    expect(byNumber.status).toBe(200);
    expect(byNumber.body).toEqual(byId.body);
    expect(ids(await list(item.id.toUpperCase()))).toEqual(ids(byId));
  });

  it('leaves out replaced artifacts: same criterionId + filename (later emittedAt wins) or superseded', async () => {
    const item = await newItem();
    // The later version is uploaded first; replacement follows emittedAt, not arrival.
    const v2 = await upload({ workItemId: item.id, criterionId: 'c1', filename: 'login.png', emittedAt: at(20) });
    const v1 = await upload({ workItemId: item.id, criterionId: 'c1', filename: 'login.png', emittedAt: at(10) });
    const otherFile = await upload({
      workItemId: item.id,
      criterionId: 'c1',
      filename: 'logout.png',
      emittedAt: at(11),
    });
    const otherCriterion = await upload({
      workItemId: item.id,
      criterionId: 'c2',
      filename: 'login.png',
      emittedAt: at(12),
    });
    const noCriterionA = await upload({ workItemId: item.id, filename: 'notes.txt', emittedAt: at(13) });
    const noCriterionB = await upload({ workItemId: item.id, filename: 'notes.txt', emittedAt: at(14) });
    const oldReport = await upload({
      workItemId: item.id,
      clientArtifactId: `report-${item.id}`,
      filename: 'report.html',
      emittedAt: at(15),
    });
    const newReport = await upload({
      workItemId: item.id,
      filename: 'report-v2.html',
      supersedes: `report-${item.id}`,
      emittedAt: at(16),
    });
    const oldLog = await upload({ workItemId: item.id, filename: 'a.log', emittedAt: at(17) });
    const newLog = await upload({ workItemId: item.id, filename: 'b.log', supersedes: oldLog, emittedAt: at(18) });

    const res = await list(item.id);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([otherFile, otherCriterion, noCriterionA, noCriterionB, newReport, newLog, v2]);
    expect(ids(res)).not.toContain(v1);
    expect(ids(res)).not.toContain(oldReport);
    // A replaced artifact is still readable by id.
    expect((await gw.call('GET', `/v1/artifacts/${v1}`, auth)).status).toBe(200);
  });

  it('returns exactly 200 artifacts with truncated false, and the oldest 200 with truncated true at 201', async () => {
    const item = await newItem();
    const content = Buffer.from('same bytes for all');
    const uploaded: string[] = [];
    for (let i = 0; i < 201; i++) {
      // Uploaded newest first, so arrival order cannot pass for age.
      const body = artifactBody(
        content,
        { workItemId: item.id, filename: `f${i}.png`, emittedAt: at(1000 - i) },
        { unanchored: true },
      );
      const res = await gw.call('POST', '/v1/artifacts', { ...auth, body });
      expect(res.status).toBe(201);
      uploaded.push(res.body.data.id);
      if (i === 199) {
        const exactly = await list(item.id);
        expect(exactly.body.data).toHaveLength(200);
        expect(exactly.body.pagination).toEqual({ truncated: false });
      }
    }
    const oldestFirst = [...uploaded].reverse();
    const res = await list(item.id);
    expect(res.body.data).toHaveLength(200);
    expect(res.body.pagination).toEqual({ truncated: true });
    // The newest (the first uploaded) is the one left out.
    expect(ids(res)).toEqual(oldestFirst.slice(0, 200));
    expect(ids(res)).not.toContain(uploaded[0]);
  });

  it('counts the limit after replacement: 201 stored with one replaced is 200 live, not truncated', async () => {
    const item = await newItem();
    const content = Buffer.from('x');
    const uploaded: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        body: artifactBody(
          content,
          { workItemId: item.id, filename: `g${i}.png`, emittedAt: at(i) },
          { unanchored: true },
        ),
      });
      expect(res.status).toBe(201);
      uploaded.push(res.body.data.id);
    }
    const replacing = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(
        content,
        { workItemId: item.id, filename: 'g0-v2.png', emittedAt: at(500), supersedes: uploaded[0] },
        { unanchored: true },
      ),
    });
    expect(replacing.status).toBe(201);
    const res = await list(item.id);
    expect(res.body.pagination).toEqual({ truncated: false });
    expect(ids(res)).toEqual([...uploaded.slice(1), replacing.body.data.id]);
  });

  it('answers 404 work_item_not_found for an unknown number or id, and for another factory’s item', async () => {
    const item = await newItem();
    await upload({ workItemId: item.id });
    const unknownNumber = await list(987654);
    expect(unknownNumber.status).toBe(404);
    expect(unknownNumber.body.error.code).toBe('work_item_not_found');
    const unknownId = await list(crypto.randomUUID());
    expect(unknownId.status).toBe(404);
    const theirs = await list(item.id, { token: other.factoryKey, appId: other.appId });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('work_item_not_found');
  });

  it('answers 400 invalid_path_params for a reference that is neither a uuid nor a number', async () => {
    for (const ref of ['abc', '0', '-1', '1.5']) {
      const res = await list(ref);
      expect(res.status, ref).toBe(400);
      expect(res.body.error.code).toBe('invalid_path_params');
    }
  });

  it('answers 403 without artifacts.read, and 401 without a credential or with another factory’s key', async () => {
    const item = await newItem();
    const writer = await keyWith(gw, t, ['work.read', 'artifacts.write']);
    const denied = await list(item.id, { token: writer, appId: t.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'artifacts.read' });
    expect((await gw.call('GET', `/v1/work-items/${item.id}/artifacts`, { appId: t.appId })).status).toBe(401);
    expect((await list(item.id, { token: other.factoryKey, appId: t.appId })).status).toBe(401);
    const reader = await keyWith(gw, t, ['artifacts.read']);
    expect((await list(item.id, { token: reader, appId: t.appId })).status).toBe(200);
  });
});
