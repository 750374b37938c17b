// POST /v1/artifacts, GET /v1/artifacts/{id}, GET /v1/artifacts/{id}/content, GET /v1/artifacts?repository=&prNumber=.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { kindOf, sanitizeFilename } from '../../../src/areas/artifacts/service.js';
import { artifactBody, at, keyWith, sha256 } from './helpers.js';

const MiB = 1024 * 1024;

describe('artifacts', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  let auth: { token: string; appId: string };

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
  beforeAll(() => {
    auth = { token: t.factoryKey, appId: t.appId };
  });

  const post = (body: unknown, a: { token: string; appId: string } = auth) =>
    gw.call('POST', '/v1/artifacts', { ...a, body });

  describe('POST /v1/artifacts', () => {
    it('stores the artifact and its bytes, derives the kind and answers 201 with the spec fields', async () => {
      const content = Buffer.from('\x89PNG fake image bytes');
      const body = artifactBody(content, { criterionId: 'crit-1', session: { sessionId: 'sess-a', turnIndex: 3 } });
      const res = await post(body);
      expect(res.status).toBe(201);
      const a = res.body.data;
      expect(a).toMatchObject({
        clientArtifactId: body.artifact.clientArtifactId,
        kind: 'screenshot',
        caption: 'the login page after the fix',
        filename: 'shot.png',
        mediaType: 'image/png',
        bytes: content.length,
        sha256: sha256(content),
        criterionId: 'crit-1',
        prNumber: 7,
        repository: 'acme/api',
        workItemId: null,
        supersedes: null,
        session: { sessionId: 'sess-a', turnIndex: 3 },
        emittedAt: '2026-11-01T12:00:00.000Z',
      });
      expect(a.url).toBe(`http://attest.test/artifacts/${a.id}`);
      expect(a.contentUrl).toBe(`http://attest.test/v1/artifacts/${a.id}/content`);

      const read = await gw.call('GET', `/v1/artifacts/${a.id}`, auth);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(a);
      const bytes = await gw.app.inject({
        method: 'GET',
        url: `/v1/artifacts/${a.id}/content`,
        headers: { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId },
      });
      expect(bytes.statusCode).toBe(200);
      expect(bytes.rawPayload.equals(content)).toBe(true);
      // The bytes live in the content-addressed blob store under their sha256.
      expect(await gw.app.attest.blobs.has(sha256(content))).toBe(true);
      expect((await gw.app.attest.blobs.get(sha256(content)))?.equals(content)).toBe(true);
    });

    it('derives kind from the media type (API.md §5)', async () => {
      const cases: [string, string][] = [
        ['video/mp4', 'video'],
        ['video/webm', 'video'],
        ['image/png', 'screenshot'],
        ['image/svg+xml', 'screenshot'],
        ['text/html; charset=utf-8', 'report'],
        ['application/pdf', 'report'],
        ['text/plain', 'log'],
        ['Text/Plain; charset="utf-8"', 'log'],
        ['application/json', 'file'],
        ['application/octet-stream', 'file'],
      ];
      for (const [mediaType, kind] of cases) expect(kindOf(mediaType), mediaType).toBe(kind);
      const res = await post(artifactBody(Buffer.from('a video'), { mediaType: 'video/mp4', filename: 'run.mp4' }));
      expect(res.status).toBe(201);
      expect(res.body.data.kind).toBe('video');
      const log = await post(
        artifactBody(Buffer.from('log line'), { mediaType: 'text/plain; charset=utf-8', filename: 'run.log' }),
      );
      expect(log.body.data.kind).toBe('log');
    });

    it('sanitises the filename: no path separators, no `..`', async () => {
      expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
      expect(sanitizeFilename('C:\\temp\\..\\report.html')).toBe('report.html');
      expect(sanitizeFilename('a..b.txt')).toBe('a.b.txt');
      expect(sanitizeFilename('..')).toBe('artifact');
      expect(sanitizeFilename('dir/')).toBe('artifact');
      expect(sanitizeFilename('bad\u0000name\n.txt')).toBe('badname.txt');
      expect(sanitizeFilename(`${'x'.repeat(300)}.png`)).toHaveLength(255);
      expect(sanitizeFilename(`${'x'.repeat(300)}.png`).endsWith('.png')).toBe(true);
      const res = await post(artifactBody(Buffer.from('x'), { filename: '../../../etc/passwd' }));
      expect(res.status).toBe(201);
      expect(res.body.data.filename).toBe('passwd');
      const read = await gw.call('GET', `/v1/artifacts/${res.body.data.id}`, auth);
      expect(read.body.data.filename).toBe('passwd');
    });

    it('is idempotent on clientArtifactId: same bytes → 200 with the stored artifact, other bytes → 409', async () => {
      const content = Buffer.from('first bytes');
      const body = artifactBody(content, { filename: 'idem.txt', mediaType: 'text/plain' });
      const first = await post(body);
      expect(first.status).toBe(201);
      // A retry, even with a changed caption, answers the stored artifact unchanged.
      const again = await post({ ...body, artifact: { ...body.artifact, caption: 'changed caption' } });
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);

      const otherBytes = Buffer.from('second bytes');
      const conflict = await post(artifactBody(otherBytes, { clientArtifactId: body.artifact.clientArtifactId }));
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('artifact_content_conflict');
      expect(conflict.body.error.artifactId).toBe(first.body.data.id);

      const stored = await gw.app.inject({
        method: 'GET',
        url: `/v1/artifacts/${first.body.data.id}/content`,
        headers: { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId },
      });
      expect(stored.rawPayload.equals(content)).toBe(true);
      // Another factory may use the same clientArtifactId for its own artifact.
      const theirs = await post(artifactBody(otherBytes, { clientArtifactId: body.artifact.clientArtifactId }), {
        token: other.factoryKey,
        appId: other.appId,
      });
      expect(theirs.status).toBe(201);
      expect(theirs.body.data.id).not.toBe(first.body.data.id);
    });

    it('settles concurrent first uploads of one clientArtifactId: one 201, the rest 200 with it', async () => {
      const body = artifactBody(Buffer.from('raced bytes'), { repository: 'acme/race', prNumber: 1 });
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(body)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
      const list = await gw.call('GET', '/v1/artifacts?repository=acme/race&prNumber=1', auth);
      expect(list.body.data).toHaveLength(1);
    });

    it('answers 400 nothing_to_attach when there is no pull request, work item or session', async () => {
      const body = artifactBody(Buffer.from('orphan'), { clientArtifactId: 'orphan-1' }, { unanchored: true });
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('nothing_to_attach');
      // Nothing was stored: the same clientArtifactId is still free.
      const ok = await post(artifactBody(Buffer.from('other'), { clientArtifactId: 'orphan-1' }));
      expect(ok.status).toBe(201);
    });

    it('accepts a session alone as the anchor', async () => {
      const res = await post(
        artifactBody(Buffer.from('s'), { session: { sessionId: 'sess-only' } }, { unanchored: true }),
      );
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        repository: null,
        prNumber: null,
        session: { sessionId: 'sess-only', turnIndex: null },
      });
    });

    it('needs repository and prNumber together', async () => {
      const body = artifactBody(Buffer.from('half'), { repository: 'acme/api' }, { unanchored: true });
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
      expect(res.body.error.details[0].path).toBe('artifact.prNumber');
    });

    it('answers 400 blob_hash_mismatch for a wrong sha256 or byte length, and stores nothing', async () => {
      const content = Buffer.from('the real bytes');
      const wrongHash = artifactBody(content, {
        sha256: sha256(Buffer.from('other')),
        repository: 'acme/mismatch',
        prNumber: 1,
      });
      const res = await post(wrongHash);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('blob_hash_mismatch');
      expect(res.body.error.actual).toEqual({ sha256: sha256(content), bytes: content.length });

      const wrongLength = artifactBody(content, {
        bytes: content.length + 1,
        repository: 'acme/mismatch',
        prNumber: 1,
      });
      const res2 = await post(wrongLength);
      expect(res2.status).toBe(400);
      expect(res2.body.error.code).toBe('blob_hash_mismatch');

      const list = await gw.call('GET', '/v1/artifacts?repository=acme/mismatch&prNumber=1', auth);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([]);
      // The retry with the right hash goes through under the same clientArtifactId.
      const fixed = await post({ ...wrongHash, artifact: { ...wrongHash.artifact, sha256: sha256(content) } });
      expect(fixed.status).toBe(201);
    });

    it('accepts an upper-case sha256 and stores it lower-case', async () => {
      const content = Buffer.from('case');
      const res = await post(artifactBody(content, { sha256: sha256(content).toUpperCase() }));
      expect(res.status).toBe(201);
      expect(res.body.data.sha256).toBe(sha256(content));
    });

    it('rejects a blob that is not standard base64', async () => {
      const body = artifactBody(Buffer.from('abc'));
      const res = await post({ ...body, blob: { data: 'not base64!' } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
      expect(res.body.error.details[0].path).toBe('blob.data');
    });

    it('rejects a bad media type with 400 invalid_request_body', async () => {
      for (const mediaType of [
        'png',
        'image/',
        '/png',
        'image/png/extra',
        'text/html; <script>',
        'image/png\r\nX-Evil: 1',
      ]) {
        const res = await post(artifactBody(Buffer.from('m'), { mediaType }));
        expect(res.status, mediaType).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
        expect(res.body.error.details[0].path).toBe('artifact.mediaType');
      }
    });

    it('rejects unknown fields, a missing field and a wrong schemaVersion', async () => {
      const body = artifactBody(Buffer.from('u'));
      const extra = await post({ ...body, artifact: { ...body.artifact, colour: 'red' } });
      expect(extra.status).toBe(400);
      expect(extra.body.error.details[0]).toEqual({ path: 'artifact.colour', message: 'is not a known field' });
      const { caption: _caption, ...noCaption } = body.artifact;
      const missing = await post({ ...body, artifact: noCaption });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details[0].path).toBe('artifact.caption');
      const v2 = await post({ ...body, schemaVersion: 2 });
      expect(v2.status).toBe(400);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        raw: '<x/>',
        headers: { 'content-type': 'application/xml' },
      });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    });

    it('answers 413 with limit for a request over 12 MiB', async () => {
      const body = artifactBody(Buffer.from('x'));
      const raw = JSON.stringify({ ...body, blob: { data: 'A'.repeat(12 * MiB + 16) } });
      const res = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ code: 'payload_too_large', limit: 12 * MiB });
    });

    it('answers 413 with limit for a blob over 8 MiB in a request under 12 MiB', async () => {
      const content = Buffer.alloc(8 * MiB + 1, 7);
      const res = await post(artifactBody(content, { mediaType: 'application/octet-stream', filename: 'big.bin' }));
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ code: 'payload_too_large', limit: 8 * MiB });
      // A declared size over the limit is refused the same way, before decoding.
      const declared = await post(artifactBody(Buffer.from('x'), { bytes: 8 * MiB + 1 }));
      expect(declared.status).toBe(413);
      expect(declared.body.error.limit).toBe(8 * MiB);
    });

    it('accepts a blob of exactly 8 MiB', async () => {
      const content = Buffer.alloc(8 * MiB, 3);
      const res = await post(artifactBody(content, { mediaType: 'application/octet-stream', filename: 'max.bin' }));
      expect(res.status).toBe(201);
      expect(res.body.data.bytes).toBe(8 * MiB);
    });

    it('resolves workItemId given by number to the item id; unknown items are 404 work_item_not_found', async () => {
      const item = await gw.call('POST', '/v1/work-items', {
        ...auth,
        body: { tracker: 'github', trackerKey: 'acme/api#1', title: 'Fix login' },
      });
      expect(item.status).toBe(201);
      const byNumber = await post(
        artifactBody(Buffer.from('w'), { workItemId: String(item.body.data.number) }, { unanchored: true }),
      );
      expect(byNumber.status).toBe(201);
      expect(byNumber.body.data.workItemId).toBe(item.body.data.id);
      const missing = await post(artifactBody(Buffer.from('w'), { workItemId: '99999' }, { unanchored: true }));
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('work_item_not_found');
      // Another factory's item is not found either.
      const theirs = await post(
        artifactBody(Buffer.from('w'), { workItemId: item.body.data.id }, { unanchored: true }),
        { token: other.factoryKey, appId: other.appId },
      );
      expect(theirs.status).toBe(404);
    });

    it("refuses none (401), a wrong one (401), another factory's key (401), no artifacts.write (403)", async () => {
      const body = artifactBody(Buffer.from('auth'), { repository: 'acme/auth', prNumber: 1 });
      const none = await gw.call('POST', '/v1/artifacts', { appId: t.appId, body });
      expect(none.status).toBe(401);
      const wrong = await post(body, { token: `sk_outerlayer_${'a'.repeat(42)}`, appId: t.appId });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('unauthorized');
      const foreign = await post(body, { token: other.factoryKey, appId: t.appId });
      expect(foreign.status).toBe(401);
      const readOnly = await keyWith(gw, t, ['artifacts.read']);
      const denied = await post(body, { token: readOnly, appId: t.appId });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'artifacts.write' });
      const list = await gw.call('GET', '/v1/artifacts?repository=acme/auth&prNumber=1', auth);
      expect(list.body.data).toEqual([]);
      // The ingest preset may upload.
      const ingest = await keyWith(gw, t, ['artifacts.write']);
      expect((await post(body, { token: ingest, appId: t.appId })).status).toBe(201);
    });
  });

  describe('GET /v1/artifacts/{id}/content', () => {
    const content = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
    let id: string;
    const get = (
      artifactId: string,
      headers: Record<string, string> = {},
      a: { token: string; appId: string } = auth,
    ) =>
      gw.app.inject({
        method: 'GET',
        url: `/v1/artifacts/${artifactId}/content`,
        headers: { authorization: `Bearer ${a.token}`, 'x-outerlayer-app-id': a.appId, ...headers },
      });

    beforeAll(async () => {
      const res = await post(artifactBody(content, { mediaType: 'video/mp4', filename: 'rün "demo".mp4' }));
      expect(res.status).toBe(201);
      id = res.body.data.id;
    });

    it('serves the bytes with Content-Type, Content-Disposition, nosniff, a sandbox CSP, Accept-Ranges', async () => {
      const res = await get(id);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(content)).toBe(true);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(res.headers['content-length']).toBe('100');
      expect(res.headers['content-disposition']).toBe(
        `inline; filename="r_n _demo_.mp4"; filename*=UTF-8''r%C3%BCn%20%22demo%22.mp4`,
      );
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.headers.etag).toBe(`"${sha256(content)}"`);
    });

    it('answers a first-bytes range with 206 and Content-Range', async () => {
      const res = await get(id, { range: 'bytes=0-9' });
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-range']).toBe('bytes 0-9/100');
      expect(res.headers['content-length']).toBe('10');
      expect(res.rawPayload.equals(content.subarray(0, 10))).toBe(true);
    });

    it('answers a suffix range with the last bytes', async () => {
      const res = await get(id, { range: 'bytes=-5' });
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-range']).toBe('bytes 95-99/100');
      expect(res.rawPayload.equals(content.subarray(95))).toBe(true);
      const longer = await get(id, { range: 'bytes=-500' });
      expect(longer.statusCode).toBe(206);
      expect(longer.headers['content-range']).toBe('bytes 0-99/100');
    });

    it('answers an open-ended range and clamps an end past the content', async () => {
      const open = await get(id, { range: 'bytes=90-' });
      expect(open.statusCode).toBe(206);
      expect(open.headers['content-range']).toBe('bytes 90-99/100');
      expect(open.rawPayload.equals(content.subarray(90))).toBe(true);
      const clamped = await get(id, { range: 'bytes=50-1000' });
      expect(clamped.headers['content-range']).toBe('bytes 50-99/100');
      expect(clamped.rawPayload).toHaveLength(50);
    });

    it('answers 416 range_not_satisfiable with Content-Range bytes */size for a range past the end', async () => {
      for (const range of ['bytes=100-', 'bytes=100-200', 'bytes=-0']) {
        const res = await get(id, { range });
        expect(res.statusCode, range).toBe(416);
        expect(res.headers['content-range']).toBe('bytes */100');
        expect(JSON.parse(res.body).error).toMatchObject({ code: 'range_not_satisfiable', size: 100 });
      }
    });

    it('sends the whole content for ranges it does not serve (several, malformed, If-Range of another)', async () => {
      for (const headers of [
        { range: 'bytes=0-1,5-6' },
        { range: 'bytes=5-2' },
        { range: 'items=0-1' },
        { range: 'bytes=0-1', 'if-range': '"other"' },
      ] as Record<string, string>[]) {
        const res = await get(id, headers);
        expect(res.statusCode, JSON.stringify(headers)).toBe(200);
        expect(res.rawPayload.equals(content)).toBe(true);
      }
      const matching = await get(id, { range: 'bytes=0-1', 'if-range': `"${sha256(content)}"` });
      expect(matching.statusCode).toBe(206);
    });

    it('serves HTML and SVG as attachments under a sandbox CSP: no script in the gateway origin', async () => {
      for (const [mediaType, filename] of [
        ['text/html; charset=utf-8', 'report.html'],
        ['image/svg+xml', 'chart.svg'],
      ] as const) {
        const html = Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
        );
        const up = await post(artifactBody(html, { mediaType, filename }));
        expect(up.status).toBe(201);
        const res = await get(up.body.data.id);
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-disposition']).toMatch(/^attachment; filename="/);
        expect(res.headers['content-security-policy']).toMatch(/(^|; )sandbox($|;)/);
        expect(res.headers['content-security-policy']).not.toContain('script-src');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    });

    it('answers 404 for another factory reading the content, even when it stored the same bytes', async () => {
      const theirs = { token: other.factoryKey, appId: other.appId };
      const res = await get(id, {}, theirs);
      expect(res.statusCode).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe('artifact_not_found');
      const meta = await gw.call('GET', `/v1/artifacts/${id}`, theirs);
      expect(meta.status).toBe(404);
      // The other factory uploads the very same bytes: it reads its own artifact, never ours.
      const same = await post(artifactBody(content, { mediaType: 'video/mp4' }), theirs);
      expect(same.status).toBe(201);
      expect((await get(same.body.data.id, {}, theirs)).statusCode).toBe(200);
      expect((await get(id, {}, theirs)).statusCode).toBe(404);
      // Their key naming our factory is refused outright.
      expect((await get(id, {}, { token: other.factoryKey, appId: t.appId })).statusCode).toBe(401);
    });

    it('answers 404 unknown id, 400 malformed, 401 without a credential, 403 without artifacts.read', async () => {
      const unknown = await get(crypto.randomUUID());
      expect(unknown.statusCode).toBe(404);
      expect(JSON.parse(unknown.body).error.code).toBe('artifact_not_found');
      const bad = await get('not-a-uuid');
      expect(bad.statusCode).toBe(400);
      expect(JSON.parse(bad.body).error.code).toBe('invalid_path_params');
      const none = await gw.app.inject({
        method: 'GET',
        url: `/v1/artifacts/${id}/content`,
        headers: { 'x-outerlayer-app-id': t.appId },
      });
      expect(none.statusCode).toBe(401);
      expect((await gw.call('GET', `/v1/artifacts/${id}`, { appId: t.appId })).status).toBe(401);
      // HEAD goes through the same guard and answers the headers only.
      const headNone = await gw.app.inject({ method: 'HEAD', url: `/v1/artifacts/${id}/content` });
      expect(headNone.statusCode).toBe(401);
      const head = await gw.app.inject({
        method: 'HEAD',
        url: `/v1/artifacts/${id}/content`,
        headers: { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId },
      });
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-length']).toBe('100');
      expect(head.body).toBe('');
      const writer = await keyWith(gw, t, ['artifacts.write']);
      const denied = await get(id, {}, { token: writer, appId: t.appId });
      expect(denied.statusCode).toBe(403);
      expect(JSON.parse(denied.body).error.required_permission).toBe('artifacts.read');
    });

    it('serves an empty artifact (and answers 416 for any range on it)', async () => {
      const up = await post(artifactBody(Buffer.alloc(0), { mediaType: 'text/plain', filename: 'empty.log' }));
      expect(up.status).toBe(201);
      const res = await get(up.body.data.id);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload).toHaveLength(0);
      expect((await get(up.body.data.id, { range: 'bytes=0-' })).statusCode).toBe(416);
    });
  });

  describe('GET /v1/artifacts?repository=&prNumber=', () => {
    it('lists the live artifacts of a pull request oldest first; replaced ones are left out', async () => {
      const pr = { repository: 'acme/list', prNumber: 3 };
      const later = await post(
        artifactBody(Buffer.from('v2'), { ...pr, criterionId: 'c1', filename: 'proof.png', emittedAt: at(10) }),
      );
      const earlier = await post(
        artifactBody(Buffer.from('v1'), { ...pr, criterionId: 'c1', filename: 'proof.png', emittedAt: at(5) }),
      );
      const oldest = await post(artifactBody(Buffer.from('o'), { ...pr, filename: 'other.png', emittedAt: at(1) }));
      const elsewhere = await post(artifactBody(Buffer.from('e'), { repository: 'acme/list', prNumber: 4 }));
      for (const r of [later, earlier, oldest, elsewhere]) expect(r.status).toBe(201);
      const list = await gw.call('GET', '/v1/artifacts?repository=acme/list&prNumber=3', auth);
      expect(list.status).toBe(200);
      expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([oldest.body.data.id, later.body.data.id]);
      // The next call with another number gets that pull request's (the query is compiled once, bound per call).
      const next = await gw.call('GET', '/v1/artifacts?repository=acme/list&prNumber=4', auth);
      expect(next.body.data.map((a: { id: string }) => a.id)).toEqual([elsewhere.body.data.id]);
      // Another factory sees none of them.
      const theirs = await gw.call('GET', '/v1/artifacts?repository=acme/list&prNumber=3', {
        token: other.factoryKey,
        appId: other.appId,
      });
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toEqual([]);
    });

    it('needs both query parameters', async () => {
      const res = await gw.call('GET', '/v1/artifacts?repository=acme/list', auth);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_query_params');
    });
  });
});
