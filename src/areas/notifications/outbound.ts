// Sending one notification: a POST to a URL a factory member chose, under the same SSRF rules as the
// OAuth metadata fetch (src/areas/oauth/metadata-fetch.ts): https only, and every address the host resolves
// to must be public, checked inside the connection's own lookup so a DNS answer that changes between check
// and connect cannot slip through. Redirects are not followed (a 3xx is a failed delivery). One deadline for
// the whole exchange; the answer is read up to a few KiB. ATTEST_NOTIFY_ALLOW_PRIVATE=1 (tests, development)
// allows private addresses, and plain http on a loopback host.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress } from '../oauth/metadata-fetch.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_KEEP_BYTES = 2048;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A target the gateway will not send to; `message` is safe to show the channel's owner. */
export class TargetRefused extends Error {}

/** Why a URL may not be a channel's target, or null when it may (checked at creation and at every send). */
export function targetProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The URL is not valid.';
  }
  if (url.username || url.password) return 'The URL may not carry a user name or password.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:') {
    if (!(allowPrivate && LOOPBACK_HOSTS.has(url.hostname)))
      return 'The URL must be https: the gateway sends notifications only over https.';
  } else if (url.protocol !== 'https:') return 'The URL must be https.';
  if (allowPrivate) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'The URL names a loopback host.';
  if (net.isIP(host) && !isPublicAddress(host))
    return 'The URL names a private, loopback or reserved address; the gateway sends only to public addresses.';
  return null;
}

export interface PostResult {
  status: number;
  body: string;
  latencyMs: number;
}

/** POST `body` to `rawUrl`; resolves with any HTTP answer, rejects (TargetRefused or Error) when none came. */
export function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostResult> {
  const problem = targetProblem(rawUrl, allowPrivate);
  if (problem) return Promise.reject(new TargetRefused(problem));
  const url = new URL(rawUrl);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const lookup: net.LookupFunction = (host, options, callback) => {
    dns.promises.lookup(host, { all: true, verbatim: true }).then(
      (found) => {
        const bad = allowPrivate ? undefined : found.find((a) => !isPublicAddress(a.address));
        if (found.length === 0 || bad) {
          (callback as (err: Error) => void)(
            new TargetRefused(
              `${host} does not resolve to a public address; the gateway sends only to public addresses.`,
            ),
          );
          return;
        }
        const wanted =
          options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (options.all) (callback as (err: null, a: dns.LookupAddress[]) => void)(null, wanted);
        else callback(null, wanted[0]?.address ?? '', wanted[0]?.family ?? 4);
      },
      () => (callback as (err: Error) => void)(new Error(`${host} did not resolve`)),
    );
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(
      {
        protocol: url.protocol,
        hostname,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'attest-gateway (notifications)',
          ...headers,
        },
        lookup,
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_KEEP_BYTES) chunks.push(chunk);
          size += chunk.length;
          // Past what is kept, the rest is not worth waiting for.
          if (size > 64 * 1024) res.destroy();
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, RESPONSE_KEEP_BYTES).toString('utf8'),
            latencyMs: Math.round(performance.now() - started),
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', () => done());
      },
    );
    req.on('error', (err) => {
      const cause = (err as { cause?: unknown }).cause;
      if (err instanceof TargetRefused) reject(err);
      else if (cause instanceof TargetRefused) reject(cause);
      else if (err.name === 'AbortError' || err.name === 'TimeoutError')
        reject(new Error(`no answer within ${timeoutMs / 1000} s`));
      else reject(new Error(err.message || 'the connection failed'));
    });
    req.end(body);
  });
}
