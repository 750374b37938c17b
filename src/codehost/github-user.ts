// The GitHub App acting for a user (user authorization, the "web application flow" with PKCE): the code
// exchange, who the user is (GET /user, GET /user/emails) and which installations of the App they can reach
// (GET /user/installations). Public GitHub routes only, at GITHUB_WEB_URL / GITHUB_API_URL.
import crypto from 'node:crypto';

const TIMEOUT_MS = 10_000;

export interface GitHubOAuth {
  webUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
}

export function authorizationUrl(
  gh: Pick<GitHubOAuth, 'webUrl' | 'clientId'>,
  redirectUri: string,
  state: string,
  codeChallenge: string,
): string {
  const url = new URL(`${gh.webUrl}/login/oauth/authorize`);
  url.searchParams.set('client_id', gh.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('allow_signup', 'false');
  return url.href;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

async function json(res: Response, what: string): Promise<unknown> {
  if (!res.ok) throw new Error(`${what}: GitHub answered ${res.status}`);
  return res.json();
}

export interface UserToken {
  token: string;
  /** Seconds the token lives (GitHub: 8 hours), when GitHub says. */
  expiresIn: number | null;
}

/** A user access token for the code GitHub sent back (the PKCE verifier proves this gateway started the flow). */
export async function exchangeCode(
  gh: GitHubOAuth,
  code: string,
  redirectUri: string,
  codeVerifier: string,
): Promise<UserToken> {
  const res = await fetch(`${gh.webUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: gh.clientId,
      client_secret: gh.clientSecret,
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  // GitHub answers 200 with { error, error_description } for a bad code.
  const body = (await json(res, 'token exchange')) as { access_token?: unknown; expires_in?: unknown; error?: unknown };
  if (typeof body.access_token !== 'string') throw new Error(`token exchange refused: ${String(body.error)}`);
  return { token: body.access_token, expiresIn: typeof body.expires_in === 'number' ? body.expires_in : null };
}

function userGet(gh: Pick<GitHubOAuth, 'apiUrl'>, token: string, path: string): Promise<Response> {
  return fetch(`${gh.apiUrl.replace(/\/+$/, '')}${path}`, {
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'attest-gateway',
    },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
}

export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  /** The primary email when GitHub says it is verified; else any verified one; else null. */
  verifiedEmail: string | null;
}

export async function userOf(gh: Pick<GitHubOAuth, 'apiUrl'>, token: string): Promise<GitHubUser> {
  const user = (await json(await userGet(gh, token, '/user'), 'GET /user')) as {
    id: number;
    login: string;
    name: string | null;
  };
  const emails = (await json(await userGet(gh, token, '/user/emails'), 'GET /user/emails')) as {
    email: string;
    primary: boolean;
    verified: boolean;
  }[];
  const verified = emails.filter((e) => e.verified === true);
  const chosen = verified.find((e) => e.primary) ?? verified[0];
  return { id: user.id, login: user.login, name: user.name, verifiedEmail: chosen?.email.toLowerCase() ?? null };
}

/** GitHub no longer takes the user's token (revoked, or the App's authorization removed). */
export class UserTokenRefused extends Error {}

/** The ids of the App's installations the user can reach (every page, up to 1,000). */
export async function userInstallationIds(gh: Pick<GitHubOAuth, 'apiUrl'>, token: string): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await userGet(gh, token, `/user/installations?per_page=100&page=${page}`);
    if (res.status === 401) throw new UserTokenRefused('GET /user/installations: GitHub answered 401');
    const body = (await json(res, 'GET /user/installations')) as {
      total_count: number;
      installations: { id: number }[];
    };
    ids.push(...body.installations.map((i) => i.id));
    if (body.installations.length < 100) break;
  }
  return ids;
}
