// Cross-tenant coverage of the context routes: after a factory syncs its .outerlayer/ tree, another org's
// factory and a sibling factory of the same org see no change and no source (404 context_not_found, as a
// factory with nothing synced), and syncing the same commit sha with other contents is their own commit,
// not a 409 against the owner's. The owner's reads come back unchanged.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const SHA = 'c0ffee'.padEnd(40, '1');

describe('context routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let empty: Tenant;
  let sibling: Sibling;
  const own = () => ({ token: a.factoryKey, appId: a.appId });
  const READS = [
    '/v1/context/changes',
    '/v1/context/changes?branch=main',
    '/v1/context/source',
    `/v1/context/source?commitSha=${SHA}`,
    `/v1/context/source?commitSha=${SHA}&path=.outerlayer/rules.md`,
  ];
  let before: string[];
  const ownReads = async () =>
    (await Promise.all(READS.map((u) => gw.call('GET', u, own())))).map((r) => `${r.status} ${r.text}`);

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    empty = await createTenant(gw);
    sibling = await siblingFactory(gw, a);
    const synced = await gw.call('POST', '/v1/context/sync', {
      ...own(),
      body: {
        commitSha: SHA,
        branch: 'main',
        files: [{ path: '.outerlayer/rules.md', content: b64('# secret rules of A\n') }],
      },
    });
    expect(synced.status).toBeLessThan(300);
    before = await ownReads();
    expect(before.join('\n')).toContain(b64('# secret rules of A\n'));
  });

  it.each(READS)('GET %s: every other factory gets what a factory with nothing synced gets', async (url) => {
    const reference = await gw.call('GET', url, { token: empty.factoryKey, appId: empty.appId });
    for (const [who, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', url, auth);
      expect({ who, status: r.status, body: r.body }).toEqual({ who, status: reference.status, body: reference.body });
      expect(r.text).not.toContain(b64('# secret rules of A\n'));
    }
  });

  it("POST /v1/context/sync of the owner's sha with other contents: the caller's own commit (no 409)", async () => {
    for (const [, auth] of foreignCallers(b, sibling).filter(([who]) => who.includes('factory key'))) {
      const r = await gw.call('POST', '/v1/context/sync', {
        ...auth,
        body: {
          commitSha: SHA,
          branch: 'main',
          files: [{ path: '.outerlayer/rules.md', content: b64('# planted\n') }],
        },
      });
      expect(r.status).toBeLessThan(300);
    }
  });

  it("the owner's changes and sources read back unchanged", async () => {
    expect(await ownReads()).toEqual(before);
  });

  // Last: it removes a stored blob. The file blob store is the default (no S3 in tests).
  it('GET /v1/context/source with its blob gone: 500 internal_error with request id, no path leaked', async () => {
    const bytes = Buffer.from('# secret rules of A\n');
    const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
    const file = path.join(gw.config.dataDir, 'blobs', sha256.slice(0, 2), sha256);
    expect(fs.existsSync(file)).toBe(true);
    fs.rmSync(file);
    const r = await gw.call('GET', `/v1/context/source?commitSha=${SHA}&path=.outerlayer/rules.md`, {
      ...own(),
      headers: { 'x-request-id': 'ctx-missing-blob' },
    });
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 500, code: 'internal_error' });
    expect(r.headers['x-request-id']).toBe('ctx-missing-blob');
    expect(r.text).not.toContain(gw.config.dataDir);
    expect(r.text).not.toContain(sha256);
  });
});
