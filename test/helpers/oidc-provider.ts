// A real OpenID Connect provider for the tests (oidc-provider, a certified implementation) on 127.0.0.1,
// with its development login and consent pages, and a driver that goes through them over HTTP as a browser
// would (a cookie jar, redirects followed by hand), up to the redirect back to the relying party.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /**
   * Follows `authorizationUrl` through the provider, signing in as `login` and consenting; the URL the
   * provider sends the browser back to (the relying party's callback with code, state and iss).
   */
  signIn(authorizationUrl: string, login: string, opts?: { deny?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUri: string): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'attest-gateway';
  const clientSecret = 'a-test-client-secret-of-enough-length';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
    },
    pkce: { required: () => true },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
  });
  // oidc-provider warns once about its development pages and keys; the tests use both on purpose.
  provider.on('server_error', () => undefined);
  server.on('request', provider.callback());

  async function signIn(authorizationUrl: string, login: string, opts: { deny?: boolean } = {}): Promise<string> {
    const jar = new Map<string, string>();
    const send = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: {
          ...(init.headers as Record<string, string>),
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return res;
    };
    let url = authorizationUrl;
    for (let step = 0; step < 12; step++) {
      if (!url.startsWith(issuer)) return url;
      const res = await send(url);
      const location = res.headers.get('location');
      if (location) {
        url = new URL(location, url).href;
        continue;
      }
      const html = await res.text();
      const uid = /\/interaction\/([^/?"]+)/.exec(url)?.[1];
      if (!uid) throw new Error(`provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
      if (opts.deny) {
        url = `${issuer}/interaction/${uid}/abort`;
        continue;
      }
      const form: Record<string, string> = html.includes('name="login"')
        ? { prompt: 'login', login, password: 'any' }
        : { prompt: 'consent' };
      const posted = await send(`${issuer}/interaction/${uid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      const next = posted.headers.get('location');
      if (!next) throw new Error(`interaction ${form.prompt} answered ${posted.status}: ${await posted.text()}`);
      url = new URL(next, url).href;
    }
    throw new Error('the provider did not send the browser back');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signIn,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
