// GET /v1/me/artifacts/{id}: an artifact by its id alone, found in whichever of the login token's factories
// holds it (what the dashboard's artifact page opens, since an artifact's url names no factory).
import { describe, expect, it } from 'vitest';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { siblingFactory } from '../../helpers/cross-tenant.js';
import { artifactBody } from './helpers.js';

describe('GET /v1/me/artifacts/{id}', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const upload = async (token: string, appId: string, text: string) => {
    const res = await gw.call('POST', '/v1/artifacts', {
      token,
      appId,
      body: artifactBody(Buffer.from(text), { filename: 'run.log', mediaType: 'text/plain' }),
    });
    expect(res.status).toBe(201);
    return res.body.data as { id: string };
  };
  const find = (id: string, token?: string, appId?: string) =>
    gw.call('GET', `/v1/me/artifacts/${id}`, { ...(token ? { token } : {}), ...(appId ? { appId } : {}) });

  it('finds the artifact in the factory that holds it, among several of the caller, in one request', async () => {
    const sibling = await siblingFactory(gw, a);
    const inMain = await upload(a.factoryKey, a.appId, 'main log');
    const inSibling = await upload(sibling.factoryKey, sibling.appId, 'sibling log');

    const first = await find(inMain.id, a.loginToken);
    expect(first.status).toBe(200);
    expect(first.body.data.appId).toBe(a.appId);
    // The same artifact GET /v1/artifacts/{id} gives with the factory named.
    expect(first.body.data.artifact).toEqual(
      (await gw.call('GET', `/v1/artifacts/${inMain.id}`, { token: a.factoryKey, appId: a.appId })).body.data,
    );

    const second = await find(inSibling.id, a.loginToken);
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({
      appId: sibling.appId,
      artifact: { id: inSibling.id, filename: 'run.log', kind: 'log' },
    });
    // A factory header changes nothing: the id alone decides.
    expect((await find(inSibling.id, a.loginToken, a.appId)).body.data.appId).toBe(sibling.appId);

    // A reader of the org finds it too.
    const reader = await addMember(gw, a, 'read');
    expect((await find(inMain.id, reader.loginToken)).body.data.appId).toBe(a.appId);
  });

  it("another org's login token finds nothing: 404 artifact_not_found, as for an id that does not exist", async () => {
    const ours = await upload(a.factoryKey, a.appId, 'private');
    const theirs = await find(ours.id, b.loginToken);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('artifact_not_found');
    const none = await find('00000000-0000-4000-8000-000000000000', a.loginToken);
    expect(none.status).toBe(404);
    expect(none.body.error).toEqual(theirs.body.error);

    // A member who left the org no longer finds it.
    const leaver = await addMember(gw, a, 'write');
    expect((await find(ours.id, leaver.loginToken)).status).toBe(200);
    expect(
      (await gw.call('DELETE', `/v1/orgs/${a.orgName}/members/${leaver.userId}`, { token: a.managementKey })).status,
    ).toBe(204);
    expect((await find(ours.id, leaver.loginToken)).status).toBe(404);
  });

  it('400 for an id that is not a uuid; 401 without a login token', async () => {
    const bad = await find('not-a-uuid', a.loginToken);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_path_params');
    const ours = await upload(a.factoryKey, a.appId, 'keyed');
    const missing = await find(ours.id);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    for (const token of [a.factoryKey, a.managementKey, gw.adminToken, 'olu_notarealtoken']) {
      const res = await find(ours.id, token, a.appId);
      expect(res.status, token.slice(0, 4)).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });
});
