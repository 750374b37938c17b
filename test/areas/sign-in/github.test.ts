// GitHub sign-in through the GitHub App's user authorization, against the GitHub double (its web flow with
// PKCE, GET /user, GET /user/emails, answers checked against GitHub's OpenAPI
// description): a verified email creates or links the user, an unverified one never signs in, a refused
// authorization says so, and a success ends in the dashboard session.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import { startGatewayWithGitHub, type GatewayWithGitHub } from '../../github-double/setup.js';
import { githubOpenApi, pointer, toJsonSchema } from '../../github-double/templates.js';

const JSON_SCHEMA = ['content', 'application/json', 'schema'];

describe('sign-in with GitHub', () => {
  let env: GatewayWithGitHub;
  let a: Tenant;
  beforeAll(async () => {
    env = await startGatewayWithGitHub({}, { signIn: true });
    a = await createTenant(env.gw);
  });
  afterAll(async () => {
    await env?.close();
  });

  const setCookie = (headers: Record<string, unknown>, name: string): string => {
    const raw = headers['set-cookie'];
    const all = Array.isArray(raw) ? raw : raw ? [String(raw)] : [];
    const found = all.find((c: string) => c.startsWith(`${name}=`));
    return found ? found.slice(name.length + 1).split(';')[0]! : '';
  };
  /** A whole sign-in as whoever is signed in to the double's "github.com": the gateway's answer at the callback. */
  async function signIn() {
    const started = await env.gw.call('GET', '/auth/github/start');
    expect(started.status).toBe(303);
    const authorize = new URL(String(started.headers.location));
    expect(authorize.pathname).toBe('/login/oauth/authorize');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe('http://attest.test/auth/github/callback');
    const atGitHub = await fetch(authorize, { redirect: 'manual' });
    const back = new URL(String(atGitHub.headers.get('location')));
    return env.gw.call('GET', `${back.pathname}${back.search}`, {
      headers: { cookie: `attest_sign_in=${setCookie(started.headers, 'attest_sign_in')}` },
    });
  }

  it('lists GitHub as a provider', async () => {
    const r = await env.gw.call('GET', '/v1/sign-in/providers');
    expect(r.body.data).toEqual([{ id: 'github', name: 'GitHub', url: '/auth/github/start' }]);
  });

  it('links an existing user by a verified email and signs in; an unverified email does not', async () => {
    const owner = await env.gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    const ownerEmail = owner.body.data[0].email as string;
    env.github.addUser('octo-owner', {
      name: 'Octo Owner',
      emails: [
        { email: 'octo@users.example.test', primary: true, verified: true },
        { email: ownerEmail, primary: false, verified: false },
      ],
    });
    env.github.browserUser = 'octo-owner';
    // The owner's address is there but unverified; the verified one belongs to nobody, who is in no org.
    expect((await signIn()).headers.location).toBe('/sign-in?reason=no-org');

    env.github.addUser('real-owner', { emails: [{ email: ownerEmail.toUpperCase(), primary: true, verified: true }] });
    env.github.browserUser = 'real-owner';
    const res = await signIn();
    expect(res.headers.location).toBe('/');
    const me = await env.gw.call('GET', '/v1/dashboard/session', {
      headers: { cookie: `attest_session=${setCookie(res.headers, 'attest_session')}` },
    });
    expect(me.body.data.user.id).toBe(a.ownerId);

    env.github.addUser('unverified', { emails: [{ email: 'nobody@acme.test', primary: true, verified: false }] });
    env.github.browserUser = 'unverified';
    expect((await signIn()).headers.location).toBe('/sign-in?reason=unverified-email');
  });

  it('a refused authorization does not sign in', async () => {
    env.github.browserUser = null;
    expect((await signIn()).headers.location).toBe('/sign-in?reason=provider');
  });

  it("answers the double gave match GitHub's OpenAPI schemas for /user and /user/emails", async () => {
    const doc = githubOpenApi();
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
    ajv.addSchema(toJsonSchema({ components: doc.components, paths: doc.paths }) as object, 'gh');
    const calls = env.github.calls.filter((c) => c.route?.startsWith('/user') && c.status === 200);
    expect(new Set(calls.map((c) => c.route))).toEqual(new Set(['/user', '/user/emails']));
    for (const call of calls) {
      const validate = ajv.compile({
        $ref: `gh#/${pointer('paths', call.route!, 'get', 'responses', '200', ...JSON_SCHEMA)}`,
      });
      expect(validate(call.body), `${call.route}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});
