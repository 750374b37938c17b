// Cross-tenant coverage of the artifact routes: another org's factory and a sibling factory of the same org
// cannot read an artifact or its bytes by id, see none in a PR list, cannot attach one to the owner's work
// item, cannot replace the owner's artifact with `supersedes`, and reusing its clientArtifactId neither
// returns the owner's artifact nor reveals it with a 409. The owner's artifacts read back unchanged.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { newItem } from '../work-items/helpers.js';
import { artifactBody } from './helpers.js';

describe('artifact routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const secret = Buffer.from('secret evidence bytes of A');
  let artifact: { id: string; clientArtifactId: string };
  let itemId: string;
  const own = () => ({ token: a.factoryKey, appId: a.appId });
  const ownReads = async () => {
    const reads = await Promise.all([
      gw.call('GET', `/v1/artifacts/${artifact.id}`, own()),
      gw.call('GET', '/v1/artifacts?repository=acme/api&prNumber=7', own()),
      gw.call('GET', `/v1/work-items/${itemId}/artifacts`, own()),
      gw.call('GET', `/v1/artifacts/${artifact.id}/content`, own()),
    ]);
    for (const r of reads) expect(r.status).toBe(200);
    return reads.map((r) => r.text);
  };
  let before: string[];

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
    itemId = (await newItem(gw, a)).id;
    const created = await gw.call('POST', '/v1/artifacts', {
      ...own(),
      body: artifactBody(secret, { workItemId: itemId, caption: 'caption of A' }),
    });
    expect(created.status).toBe(201);
    artifact = created.body.data;
    before = await ownReads();
    expect(before[3]).toBe(secret.toString());
  });

  it('GET /v1/artifacts/{id} and /content: 404 artifact_not_found for every other factory', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      for (const url of [`/v1/artifacts/${artifact.id}`, `/v1/artifacts/${artifact.id}/content`]) {
        const r = await gw.call('GET', url, auth);
        expect({ url, status: r.status, code: r.body?.error?.code }).toEqual({
          url,
          status: 404,
          code: 'artifact_not_found',
        });
        expect(r.text).not.toContain('secret evidence');
        expect(r.text).not.toContain('caption of A');
      }
    }
  });

  it('GET /v1/artifacts?repository&prNumber: the same PR in another factory lists nothing', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', '/v1/artifacts?repository=acme/api&prNumber=7', auth);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([]);
    }
  });

  it("POST /v1/artifacts naming the owner's work item: 404 work_item_not_found, nothing stored", async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        body: artifactBody(Buffer.from('planted'), { workItemId: itemId }, { unanchored: true }),
      });
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'work_item_not_found' });
    }
  });

  it("POST /v1/artifacts with the owner's clientArtifactId: the caller's new artifact (201), never a 409", async () => {
    for (const [, auth] of foreignCallers(b, sibling).filter(([who]) => who.includes('factory key'))) {
      const same = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        body: artifactBody(secret, { clientArtifactId: artifact.clientArtifactId }),
      });
      expect(same.status).toBe(201);
      expect(same.body.data.id).not.toBe(artifact.id);
      const otherBytes = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        body: artifactBody(Buffer.from('different'), {
          clientArtifactId: artifact.clientArtifactId,
          filename: 'x.png',
        }),
      });
      // The caller's own earlier upload with this id is the one it conflicts with, not the owner's.
      expect(otherBytes.status).toBe(409);
      expect(otherBytes.text).not.toContain(artifact.id);
    }
  });

  it("POST /v1/artifacts with supersedes naming the owner's artifact does not replace it", async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('POST', '/v1/artifacts', {
        ...auth,
        body: artifactBody(Buffer.from(crypto.randomUUID()), { supersedes: artifact.id }),
      });
      expect(r.status).toBe(201);
    }
  });

  it("the owner's artifact, lists and bytes read back unchanged", async () => {
    expect(await ownReads()).toEqual(before);
  });
});
