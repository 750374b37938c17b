// GitHub sign-in through the GitHub App's own user authorization: the authorization request (state + PKCE)
// and, at the callback, the user behind the code. The email counts only when GitHub says it is verified.
import type { Config } from '../../server/config.js';
import type { RequestContext } from '../../server/context.js';
import * as gh from '../../codehost/github-user.js';
import type { ProviderIdentity } from './oidc.js';
import crypto from 'node:crypto';

function oauthOf(config: Config): gh.GitHubOAuth {
  const { clientId, clientSecret, webUrl, apiUrl } = config.github;
  if (!clientId || !clientSecret) throw new Error('GitHub sign-in is not configured');
  return { clientId, clientSecret, webUrl, apiUrl };
}

export async function githubAuthorizationRequest(config: Config, redirectUri: string) {
  const pkce = gh.pkcePair();
  const state = crypto.randomBytes(32).toString('base64url');
  return {
    url: gh.authorizationUrl(oauthOf(config), redirectUri, state, pkce.challenge),
    state,
    codeVerifier: pkce.verifier,
    nonce: null,
  };
}

export async function githubIdentity(
  ctx: RequestContext,
  code: string,
  codeVerifier: string,
): Promise<ProviderIdentity> {
  const oauth = oauthOf(ctx.config);
  const token = await gh.exchangeCode(oauth, code, `${ctx.config.publicUrl}/auth/github/callback`, codeVerifier);
  const user = await gh.userOf(oauth, token);
  return {
    subject: String(user.id),
    email: user.verifiedEmail,
    emailVerified: user.verifiedEmail !== null,
    name: user.name,
    login: user.login,
  };
}
