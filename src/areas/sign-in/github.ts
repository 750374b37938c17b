// GitHub sign-in through the GitHub App's own user authorization: the authorization request (state + PKCE)
// and, at the callback, the user behind the code. The email counts only when GitHub says it is verified.
// The user token the sign-in obtained is kept, sealed, for at most 8 hours: binding an App installation asks
// GitHub with it which installations this person reaches (the installation_id of GitHub's setup redirect is
// not signed, so it proves nothing by itself).
import crypto from 'node:crypto';
import type { Config } from '../../server/config.js';
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { deriveSecret } from '../../server/pepper.js';
import * as gh from '../../codehost/github-user.js';
import { openSecret, sealSecret } from '../notifications/render.js';
import type { ProviderIdentity } from './oidc.js';
import * as store from './store.js';

/** The longest a GitHub user token is kept (GitHub's own expiry for an App's user tokens). */
export const GITHUB_USER_TOKEN_KEPT_MS = 8 * 3_600_000;

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
): Promise<{ who: ProviderIdentity; token: gh.UserToken }> {
  const oauth = oauthOf(ctx.config);
  const token = await gh.exchangeCode(oauth, code, `${ctx.config.publicUrl}/auth/github/callback`, codeVerifier);
  const user = await gh.userOf(oauth, token.token);
  return {
    who: {
      subject: String(user.id),
      email: user.verifiedEmail,
      emailVerified: user.verifiedEmail !== null,
      name: user.name,
      login: user.login,
    },
    token,
  };
}

const tokenKey = (ctx: RequestContext) => deriveSecret(ctx.gateway.pepper, 'github-user-token');

/** Keeps the token of this GitHub sign-in as the user's (replacing an earlier one). */
export async function keepGitHubUserToken(
  ctx: RequestContext,
  userId: string,
  subject: string,
  token: gh.UserToken,
): Promise<void> {
  const now = ctx.clock.now();
  const lifetime = Math.min(GITHUB_USER_TOKEN_KEPT_MS, (token.expiresIn ?? Number.POSITIVE_INFINITY) * 1000);
  await store.saveGitHubUserToken(ctx.db, {
    user_id: userId,
    subject,
    token_enc: sealSecret(tokenKey(ctx), token.token),
    created_at: now,
    expires_at: now + lifetime,
  });
}

/**
 * The App installations the user reaches on GitHub, asked now with the token of their latest GitHub sign-in;
 * null when there is none in the last 8 hours or GitHub no longer takes it. 503 github_unavailable when
 * GitHub cannot answer.
 */
export async function githubInstallationsOfUser(ctx: RequestContext, userId: string): Promise<number[] | null> {
  const row = await store.liveGitHubUserToken(ctx.db, userId, ctx.clock.now());
  if (!row) return null;
  try {
    return await gh.userInstallationIds(ctx.config.github, openSecret(tokenKey(ctx), row.token_enc));
  } catch (err) {
    if (err instanceof gh.UserTokenRefused) return null;
    ctx.log.warn({ err: { message: (err as Error).message } }, 'GitHub did not list the user installations');
    throw apiError('github_unavailable', 'GitHub did not answer which installations you reach; try again shortly.');
  }
}
