// `attest login` without a token: sign in through the browser and get a login token of one's own.
// - On a desktop, a loopback redirect with PKCE (RFC 8252): listen on 127.0.0.1 at a random port, send the
//   browser to the gateway's /cli-login page, take the one-time code it redirects back with (state checked),
//   and exchange code + verifier for the token.
// - With --device (an SSH session), the device flow (RFC 8628): print a URL and a code to confirm on any
//   signed-in browser, and poll at the interval the gateway asks for.
import crypto from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { AttestClient, ApiClientError } from '../client/index.js';
import { CliError } from './profile.js';

/** What a browser sign-in ends with: the new login token and whose it is. */
export interface BrowserLoginResult {
  token: string;
  id: string;
  name: string;
  user: { id: string; email: string; name: string };
}

export interface LoopbackOptions {
  /** Gateway base URL, without a trailing slash. */
  url: string;
  /** Where the lines for the person go (the URL to open). */
  print: (line: string) => void;
  /** Opens the sign-in page in a browser; false (or absent) when nothing could be opened. */
  open?: (pageUrl: string) => Promise<boolean>;
  clientName?: string;
  /** How long to wait for the browser (default 5 minutes). */
  timeoutMs?: number;
}

/** How this machine is named on the confirmation pages. */
export function defaultClientName(): string {
  const host =
    os
      .hostname()
      .replace(/[^\x20-\x7e]/g, '')
      .slice(0, 60) || 'unknown host';
  return `attest CLI on ${host}`;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:4em">` +
  `<h1>${title}</h1><p>${text}</p></body>`;

export async function loopbackLogin(opts: LoopbackOptions): Promise<BrowserLoginResult> {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const state = crypto.randomBytes(24).toString('base64url');
  const client = new AttestClient({ url: opts.url });

  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  try {
    const result = new Promise<BrowserLoginResult>((resolve, reject) => {
      server.on('request', (req, res) => {
        const at = new URL(req.url ?? '/', redirectUri);
        const answer = (status: number, title: string, text: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(PAGE(title, text));
        };
        if (req.method !== 'GET' || at.pathname !== '/callback') return answer(404, 'Not found', '');
        // A request without this run's state is not the browser coming back from our sign-in: refuse it and
        // keep waiting for the real one.
        if (at.searchParams.get('state') !== state)
          return answer(400, 'Sign-in not recognised', 'This does not answer the sign-in the CLI started.');
        const code = at.searchParams.get('code');
        if (!code) {
          answer(400, 'Sign-in refused', 'You can close this tab; the CLI stops here.');
          return reject(new CliError('The sign-in was refused in the browser.'));
        }
        client.exchangeCliLoginCode({ code, codeVerifier: verifier, redirectUri }).then(
          (data) => {
            answer(
              200,
              'Signed in',
              `The attest CLI is signed in as ${escapeHtml(data.user.email)}. You can close this tab.`,
            );
            resolve(data);
          },
          (err: unknown) => {
            answer(400, 'Sign-in failed', 'The gateway refused the code; run attest login again.');
            reject(err);
          },
        );
      });
    });
    const page = new URL('/cli-login', `${opts.url}/`);
    page.searchParams.set('redirect_uri', redirectUri);
    page.searchParams.set('code_challenge', challenge);
    page.searchParams.set('code_challenge_method', 'S256');
    page.searchParams.set('state', state);
    page.searchParams.set('client', opts.clientName ?? defaultClientName());
    opts.print(`Sign in to ${opts.url} in your browser:\n  ${page.href}`);
    if (opts.open) {
      if (await opts.open(page.href)) opts.print('Opened it in your browser; waiting for you to confirm there.');
      else opts.print('Could not open a browser; open the link yourself.');
    }
    const timeoutMs = opts.timeoutMs ?? 5 * 60_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CliError(`No sign-in within ${Math.round(timeoutMs / 1000)} s; run attest login again.`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([result, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface DeviceOptions {
  url: string;
  print: (line: string) => void;
  clientName?: string;
  /** Waits between polls (a test moves its clock instead). */
  sleep?: (ms: number) => Promise<void>;
}

export async function deviceLogin(opts: DeviceOptions): Promise<BrowserLoginResult> {
  const client = new AttestClient({ url: opts.url });
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const auth = await client.startDeviceLogin(opts.clientName ?? defaultClientName());
  opts.print(
    `On any device signed in to the dashboard, open\n  ${auth.verificationUri}\n` +
      `and confirm the code  ${auth.userCode}\n` +
      `(or open ${auth.verificationUriComplete}). The code expires in ${Math.round(auth.expiresIn / 60)} minutes.`,
  );
  let intervalMs = auth.interval * 1000;
  for (;;) {
    await sleep(intervalMs);
    try {
      return await client.pollDeviceLogin(auth.deviceCode);
    } catch (err) {
      if (!(err instanceof ApiClientError)) throw err;
      const asked = typeof err.extra.interval === 'number' ? err.extra.interval * 1000 : null;
      if (err.code === 'authorization_pending') {
        if (asked) intervalMs = Math.max(intervalMs, asked);
        continue;
      }
      if (err.code === 'slow_down') {
        intervalMs = asked ?? intervalMs + 5000;
        continue;
      }
      if (err.code === 'expired_token')
        throw new CliError('The code expired before it was confirmed; run `attest login --device` again.');
      if (err.code === 'access_denied') throw new CliError('The sign-in was refused on the dashboard.');
      throw err;
    }
  }
}
