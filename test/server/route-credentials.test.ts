// The house rule's credential half, for EVERY route the areas register (read from the areas, so a new
// route is covered the day it is added): no credential → 401; an unknown credential of a kind the route
// takes → 401; a credential of a kind it does not take → 401 (or the status the route documents); a
// credential of another factory or org naming this one → 401/403; and none of these answers carries data
// or changes anything of the tenant (its lists read back identical afterwards).
import { beforeAll, describe, expect, it } from 'vitest';
import type { CredentialKind } from '../../src/db/schema.js';
import { mintPlaintext } from '../../src/server/credentials.js';
import type { RouteGuard } from '../../src/server/context.js';
import type { CallResult, Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';
import { allRoutes, type RecordedRoute } from '../helpers/routes.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
const OTHER_UUID = '00000000-0000-4000-8000-00000000abcd';

const routes = allRoutes();
const guarded = routes.filter(
  (r): r is RecordedRoute & { guard: RouteGuard & { credentials: readonly CredentialKind[] } } =>
    r.guard !== undefined && r.guard.credentials !== 'public',
);

/** The route's URL with its path parameters filled in for tenant `t` (ids that exist nowhere elsewhere). */
function urlFor(route: RecordedRoute, t: Tenant, overrides: Record<string, string> = {}): string {
  return route.url.replace(/:(\w+)/g, (_m, name: string) => {
    if (overrides[name]) return overrides[name];
    if (name === 'orgName') return t.orgName;
    if (name === 'appId') return t.appId;
    if (name === 'owner') return 'acme';
    if (name === 'repo') return 'widgets';
    if (name === 'number') return '1';
    if (name === 'sha256') return 'a'.repeat(64);
    return OTHER_UUID;
  });
}

function isFactoryRoute(guard: RouteGuard): boolean {
  return (guard.factory ?? 'header') !== 'none';
}

describe('every guarded route refuses missing, wrong and foreign credentials', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let snapshot: () => Promise<string[]>;
  let before: string[];

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    // Tenant A's state as its own credentials read it; compared after every refused call below.
    snapshot = async () => {
      const reads: Promise<CallResult>[] = [
        gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/apps', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/work-items', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/repositories', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/hosts', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/emitted-results', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', '/v1/artifacts', { token: a.loginToken, appId: a.appId }),
        gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey }),
      ];
      return (await Promise.all(reads)).map((r) => `${r.status} ${r.text}`);
    };
    before = await snapshot();
  });

  const refused = (r: CallResult, status: number, code: string) => {
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
    expect(r.body.data).toBeUndefined();
  };

  it('finds the routes (the recorder reads every area)', () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(guarded.some((r) => r.url === '/v1/work-items/:id/claims/current' && r.method === 'PUT')).toBe(true);
    // Every route declares a guard (the server refuses to start otherwise); the recorder saw them all.
    expect(routes.every((r) => r.guard !== undefined)).toBe(true);
  });

  describe.each(guarded.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', (_name, route) => {
    const method = route.method as Method;
    const kinds = route.guard.credentials;
    const factoryRoute = isFactoryRoute(route.guard);

    it('(c) no credential → 401 unauthorized', async () => {
      refused(await gw.call(method, urlFor(route, a), { appId: a.appId }), 401, 'unauthorized');
    });

    it('(c) a well-formed credential of an accepted kind that the gateway never issued → 401', async () => {
      const kind = kinds[0] as CredentialKind;
      const r = await gw.call(method, urlFor(route, a), { token: mintPlaintext(kind), appId: a.appId });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
      expect(r.body.data).toBeUndefined();
    });

    it('(d) each credential kind the route does not take → refused', async () => {
      const offered: Array<[CredentialKind, string, string | undefined]> = [
        ['admin_token', gw.adminToken, undefined],
        ['management_key', a.managementKey, undefined],
        ['factory_key', a.factoryKey, a.appId],
        ['login_token', a.loginToken, a.appId],
      ];
      const wrong = offered.filter(([kind]) => !kinds.includes(kind));
      expect(wrong.length).toBeGreaterThan(0);
      for (const [, token, appId] of wrong) {
        const r = await gw.call(method, urlFor(route, a), { token, ...(appId ? { appId } : {}) });
        if (route.guard.wrongKindStatus === 403) {
          refused(r, 403, 'forbidden');
          expect(r.body.error.required_permission).toBe(route.guard.wrongKindPermission);
        } else {
          refused(r, 401, 'unauthorized');
        }
      }
    });

    if (factoryRoute && (kinds.includes('factory_key') || kinds.includes('login_token'))) {
      it("(e) another org's factory key or login token naming this factory → 401, no data", async () => {
        const foreign: Array<[string, string]> = [];
        if (kinds.includes('factory_key')) foreign.push(['factory_key', b.factoryKey]);
        if (kinds.includes('login_token')) foreign.push(['login_token', b.loginToken]);
        for (const [, token] of foreign) {
          const url = urlFor(route, a);
          const r = await gw.call(method, url, { token, appId: a.appId });
          refused(r, 401, 'unauthorized');
          expect(r.text).not.toContain(a.orgName);
        }
      });
    }

    if (route.guard.appParam) {
      it("(e) another org's factory in the path → 403 forbidden (401 if it is the key's own), no data", async () => {
        for (const token of kinds.includes('factory_key') ? [a.loginToken, a.factoryKey] : [a.loginToken]) {
          const r = await gw.call(method, urlFor(route, a, { appId: b.appId }), { token, appId: a.appId });
          if (route.guard.factory === 'path') refused(r, 401, 'unauthorized');
          else refused(r, 403, 'forbidden');
          expect(r.text).not.toContain(b.orgName);
        }
      });
    }

    if (route.guard.orgParam) {
      it("(e) another org's management key on this org's path → 403 forbidden, no data", async () => {
        const r = await gw.call(method, urlFor(route, a), { token: b.managementKey });
        refused(r, 403, 'forbidden');
        expect(r.text).not.toContain(a.orgId);
      });
    }
  });

  it("(e) none of the refused calls changed anything of the tenant's (its lists read back identical)", async () => {
    expect(await snapshot()).toEqual(before);
  });
});
