// The OpenID Connect relying party, through openid-client (a certified implementation): discovery, the
// authorization request with PKCE (S256), state and nonce, and the code exchange with ID-token validation
// (signature, issuer, audience, expiry, nonce). No JWT is checked by hand here.
import * as oidc from 'openid-client';
import type { Config } from '../../server/config.js';

type OidcSettings = NonNullable<Config['oidc']>;

/** Plain http is allowed only for an issuer on this machine (tests, development); anything else needs https. */
function loopbackHttp(issuer: URL): boolean {
  return issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
}

const discovered = new Map<string, Promise<oidc.Configuration>>();

/** The provider's metadata, discovered once per process (a failed discovery is tried again next time). */
function configurationOf(settings: OidcSettings): Promise<oidc.Configuration> {
  const key = `${settings.issuer}\n${settings.clientId}`;
  let found = discovered.get(key);
  if (!found) {
    const issuer = new URL(settings.issuer);
    found = oidc.discovery(
      issuer,
      settings.clientId,
      settings.clientSecret,
      undefined,
      loopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
    found.catch(() => discovered.delete(key));
    discovered.set(key, found);
  }
  return found;
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  codeVerifier: string;
  nonce: string;
}

export async function authorizationRequest(settings: OidcSettings, redirectUri: string): Promise<AuthorizationRequest> {
  const config = await configurationOf(settings);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, state, codeVerifier, nonce };
}

/** Who the provider says signed in. */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  login: string | null;
}

/**
 * Exchanges the code of the callback at `callbackUrl` and validates the ID token; the identity from its
 * claims, completed from the UserInfo endpoint when the ID token carries no email.
 */
export async function finishAuthorization(
  settings: OidcSettings,
  callbackUrl: URL,
  checks: { state: string; codeVerifier: string; nonce: string },
): Promise<ProviderIdentity> {
  const config = await configurationOf(settings);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('the token response carries no ID token');
  let source: Record<string, unknown> = claims;
  if (typeof claims.email !== 'string') {
    source = { ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)), sub: claims.sub };
  }
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    subject: claims.sub,
    email: str(source.email)?.toLowerCase() ?? null,
    // Only a boolean true counts: some providers send the string "true", which is not what the claim means.
    emailVerified: source.email_verified === true,
    name: str(source.name),
    login: str(source.preferred_username),
  };
}
