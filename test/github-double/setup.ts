// A gateway wired to a fresh GitHub double: the App's key pair is generated here, the gateway gets the
// private key through GITHUB_APP_PRIVATE_KEY and the double verifies the App JWT with the public key.
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { generateAppKeys, GitHubDouble, type DoubleUser } from './server.js';

export interface GatewayWithGitHub {
  gw: TestGateway;
  github: GitHubDouble;
  close(): Promise<void>;
}

/** `signIn`: also configure GitHub sign-in with the double's OAuth client (GITHUB_CLIENT_ID/SECRET). */
export async function startGatewayWithGitHub(
  env: Record<string, string> = {},
  opts: { signIn?: boolean } = {},
): Promise<GatewayWithGitHub> {
  const keys = generateAppKeys();
  const github = new GitHubDouble(keys.publicKey);
  const url = await github.start();
  const gw = await startGateway({
    env: {
      GITHUB_API_URL: url,
      GITHUB_APP_ID: String(github.appId),
      // As operators paste it into env files: one line with literal \n.
      GITHUB_APP_PRIVATE_KEY: keys.privateKeyPem.replace(/\n/g, '\\n'),
      GITHUB_WEB_URL: url,
      ...(opts.signIn
        ? { GITHUB_CLIENT_ID: github.oauthClient.clientId, GITHUB_CLIENT_SECRET: github.oauthClient.clientSecret }
        : {}),
      ...env,
    },
  });
  return {
    gw,
    github,
    close: async () => {
      await gw.close();
      await github.close();
    },
  };
}

/**
 * Binds an installation to a factory the operator's way (POST /v1/admin/apps/{appId}/installations), as a
 * factory must have it before it connects a repository of that installation. Idempotent.
 */
export async function bindInstallation(gw: TestGateway, appId: string, installationId: number): Promise<void> {
  const r = await gw.call('POST', `/v1/admin/apps/${appId}/installations`, {
    token: gw.adminToken,
    body: { installationId },
  });
  if (r.status !== 201 && r.status !== 200)
    throw new Error(`bind installation ${installationId}: ${r.status} ${r.text}`);
}

function cookieOf(headers: Record<string, unknown>, name: string): string | null {
  const raw = headers['set-cookie'];
  const all = Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
  const found = all.find((c) => c.startsWith(`${name}=`));
  const value = found?.slice(name.length + 1).split(';')[0];
  return value ? value : null;
}

/**
 * Signs `login` (a user of the double) in to the gateway with GitHub as a browser would (start, the double's
 * authorize page, the callback with the flow cookie); the dashboard session cookie's value. Needs the gateway
 * started with `{ signIn: true }`.
 */
export async function signInWithGitHub(env: GatewayWithGitHub, login: string): Promise<string> {
  env.github.browserUser = login;
  const started = await env.gw.call('GET', '/auth/github/start');
  const flow = cookieOf(started.headers, 'attest_sign_in');
  const atGitHub = await fetch(String(started.headers.location), { redirect: 'manual' });
  const back = new URL(String(atGitHub.headers.get('location')));
  const done = await env.gw.call('GET', `${back.pathname}${back.search}`, {
    headers: { cookie: `attest_sign_in=${flow}` },
  });
  const session = cookieOf(done.headers, 'attest_session');
  if (!session) throw new Error(`GitHub sign-in of ${login}: ${done.status} to ${String(done.headers.location)}`);
  return session;
}

/** A GitHub user of the double whose verified primary email is that of `userId` (a member of `orgName`). */
export async function githubUserOf(
  env: GatewayWithGitHub,
  t: { orgName: string; managementKey: string },
  userId: string,
  login: string,
): Promise<DoubleUser> {
  const members = await env.gw.call('GET', `/v1/orgs/${t.orgName}/members`, { token: t.managementKey });
  const email = (members.body.data as { userId: string; email: string }[]).find((m) => m.userId === userId)?.email;
  if (!email) throw new Error(`no member ${userId} in ${t.orgName}`);
  return env.github.addUser(login, { emails: [{ email, primary: true, verified: true }] });
}
