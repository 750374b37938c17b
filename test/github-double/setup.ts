// A gateway wired to a fresh GitHub double: the App's key pair is generated here, the gateway gets the
// private key through GITHUB_APP_PRIVATE_KEY and the double verifies the App JWT with the public key.
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { generateAppKeys, GitHubDouble } from './server.js';

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
