// Fetching a client ID metadata document (a client_id that is a URL) without letting a client aim the
// gateway at its own network (SSRF). The document's URL comes from whoever starts an authorization, so:
// - https only (plain http only on a loopback host, and only with ATTEST_OAUTH_ALLOW_PRIVATE_METADATA=1);
// - every address the host resolves to must be public: no loopback, private (RFC 1918), shared (CGNAT),
//   link-local (169.254/16 is the cloud metadata service), unspecified, multicast, reserved or
//   documentation ranges, nor their IPv6 forms (ULA, link-local, IPv4-mapped, NAT64, 6to4, Teredo);
// - the check runs inside the connection's own `lookup`, so the address checked is the address connected
//   to: a DNS answer that changes between a check and a connect (rebinding) cannot slip through;
// - redirects are followed by hand, at most MAX_REDIRECTS, each hop checked again the same way;
// - the whole fetch, redirects included, has one deadline, and the body is counted while it streams and
//   abandoned as soon as it passes the byte limit.
// Node's net.BlockList holds the ranges (built in, so no dependency and no hand-written CIDR arithmetic;
// the ranges themselves are data below). IPv4-mapped IPv6 addresses are unwrapped and judged as IPv4; any
// mapped form the unwrapping does not recognize falls in ::ffff:0:0/96 and is refused.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export const METADATA_DOCUMENT_MAX_BYTES = 64 * 1024;
export const METADATA_DOCUMENT_TIMEOUT_MS = 5000;
export const METADATA_DOCUMENT_MAX_REDIRECTS = 3;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Special-purpose ranges (IANA IPv4/IPv6 special-purpose address registries) a metadata document never lives on. */
const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
];
const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['::', 96], // unspecified ::, loopback ::1, IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped: unwrapped and judged as IPv4 below; refused here if that ever fails
  ['64:ff9b::', 96], // NAT64 (RFC 6052): reaches any IPv4 address, private ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, incl. Teredo 2001::/32
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

// Two lists, each checked only with its own family: one BlockList holding both would judge every IPv4
// address by the IPv6 rule ::ffff:0:0/96 (it matches IPv4 addresses as their mapped IPv6 form).
const notPublicV4 = new net.BlockList();
for (const [address, prefix] of NOT_PUBLIC_V4) notPublicV4.addSubnet(address, prefix, 'ipv4');
const notPublicV6 = new net.BlockList();
for (const [address, prefix] of NOT_PUBLIC_V6) notPublicV6.addSubnet(address, prefix, 'ipv6');

/** Whether an IP address (v4 or v6, without brackets) is one the gateway may fetch from. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // ::ffff:a.b.c.d (or ::ffff:7f00:1) is an IPv4 address in disguise: judge the IPv4 address.
    const mapped = /^::ffff:(?:0{1,4}:)?([0-9.]+|[0-9a-f]{1,4}:[0-9a-f]{1,4})$/i.exec(address);
    if (mapped) {
      const tail = mapped[1]!;
      const v4 = tail.includes('.') ? tail : hexPairToV4(tail);
      return v4 !== null && isPublicAddress(v4);
    }
    return !notPublicV6.check(address, 'ipv6');
  }
  return !notPublicV4.check(address, 'ipv4');
}

function hexPairToV4(tail: string): string | null {
  const [hi, lo] = tail.split(':').map((h) => parseInt(h, 16));
  if (hi === undefined || lo === undefined || Number.isNaN(hi) || Number.isNaN(lo)) return null;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}

/** Why a document was not fetched: `sentence` is for the OAuth client, `detail` for the gateway's log only. */
export class MetadataFetchRefused extends Error {
  constructor(
    readonly sentence: string,
    readonly detail: string,
  ) {
    super(sentence);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface MetadataFetchOptions {
  /** ATTEST_OAUTH_ALLOW_PRIVATE_METADATA=1 (test/development only): private addresses and http on loopback. */
  allowPrivate: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** Resolves a host name; the system resolver unless a test stands in for DNS. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Test only: addresses (with port) to treat as public, to stand in for a public host on a loopback server. */
  treatAsPublic?: (address: string, port: number) => boolean;
  /** Test only: extra trusted CA (a self-signed test certificate). */
  ca?: string | Buffer;
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

const NOT_PUBLIC_SENTENCE = (url: URL) =>
  `The client ID metadata document at ${url.origin} was not fetched: its host does not resolve to a public address, ` +
  `and the gateway fetches metadata documents only from public https addresses.`;

function checkedAddresses(
  url: URL,
  port: number,
  addresses: ResolvedAddress[],
  opts: MetadataFetchOptions,
): ResolvedAddress[] {
  if (addresses.length === 0)
    throw new MetadataFetchRefused(NOT_PUBLIC_SENTENCE(url), `${url.hostname} resolved to no address`);
  if (opts.allowPrivate) return addresses;
  // Every address must be public, not just the first: the socket may try the others (happy eyeballs), and a
  // DNS answer mixing a public and a private address is exactly what a rebinding attack sends.
  const bad = addresses.find((a) => !isPublicAddress(a.address) && !opts.treatAsPublic?.(a.address, port));
  if (bad)
    throw new MetadataFetchRefused(
      NOT_PUBLIC_SENTENCE(url),
      `${url.hostname} resolved to ${bad.address}, which is not public`,
    );
  return addresses;
}

function schemeAllowed(url: URL, opts: MetadataFetchOptions): boolean {
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && opts.allowPrivate && LOOPBACK_HOSTS.has(url.hostname);
}

/** One GET, no redirect following: the status, the Location header and the body (within maxBytes). */
function getOnce(
  url: URL,
  opts: MetadataFetchOptions,
  signal: AbortSignal,
  maxBytes: number,
): Promise<{ status: number; location: string | null; body: Buffer }> {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const resolve = opts.resolve ?? systemResolve;
  // The connection's own lookup: the address handed to the socket is one this function has just checked.
  const lookup: net.LookupFunction = (host, options, callback) => {
    resolve(host).then(
      (found) => {
        let addresses: ResolvedAddress[];
        try {
          addresses = checkedAddresses(url, port, found, opts);
        } catch (err) {
          (callback as (err: Error) => void)(err as Error);
          return;
        }
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        if (options.all) (callback as (err: null, addresses: dns.LookupAddress[]) => void)(null, wanted);
        else callback(null, wanted[0]?.address ?? '', wanted[0]?.family ?? 4);
      },
      () =>
        (callback as (err: Error) => void)(
          new MetadataFetchRefused(NOT_PUBLIC_SENTENCE(url), `${host} did not resolve`),
        ),
    );
  };
  // A literal IP address never goes through `lookup`: check it here.
  if (net.isIP(hostname))
    checkedAddresses(url, port, [{ address: hostname, family: net.isIP(hostname) === 6 ? 6 : 4 }], opts);

  return new Promise((resolvePromise, reject) => {
    const requestOptions: https.RequestOptions = {
      protocol: url.protocol,
      hostname,
      port,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'attest-gateway (client ID metadata document)' },
      lookup,
      signal,
      agent: false,
      ...(opts.ca ? { ca: opts.ca } : {}),
    };
    const req = (url.protocol === 'https:' ? https : http).request(requestOptions, (res) => {
      const status = res.statusCode ?? 0;
      const location = typeof res.headers.location === 'string' ? res.headers.location : null;
      if (status < 200 || status >= 300) {
        res.resume();
        resolvePromise({ status, location, body: Buffer.alloc(0) });
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        req.destroy();
        reject(tooLarge(url, maxBytes, `declared ${declared} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          // Stop reading at once: the rest is never downloaded.
          req.destroy();
          reject(tooLarge(url, maxBytes, `more than ${maxBytes} bytes streamed`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolvePromise({ status, location, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    // Whatever stage the exchange is in (connecting, headers, a body trickling in), the deadline ends it.
    const onAbort = () => {
      req.destroy();
      reject(new Error('deadline passed'));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal.removeEventListener('abort', onAbort));
    req.end();
  });
}

function tooLarge(url: URL, maxBytes: number, detail: string): MetadataFetchRefused {
  return new MetadataFetchRefused(
    `The client ID metadata document at ${url.href} is larger than ${maxBytes / 1024} KiB, the most the gateway reads.`,
    detail,
  );
}

/**
 * The document at `clientId` as text, or MetadataFetchRefused with a sentence for the client. Never throws
 * anything else.
 */
export async function fetchMetadataDocument(clientId: string, opts: MetadataFetchOptions): Promise<string> {
  const maxBytes = opts.maxBytes ?? METADATA_DOCUMENT_MAX_BYTES;
  const timeoutMs = opts.timeoutMs ?? METADATA_DOCUMENT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? METADATA_DOCUMENT_MAX_REDIRECTS;
  // One deadline for the whole fetch, every redirect included.
  const signal = AbortSignal.timeout(timeoutMs);
  let url = new URL(clientId);
  for (let hop = 0; ; hop++) {
    if (!schemeAllowed(url, opts)) {
      throw new MetadataFetchRefused(
        hop === 0
          ? `The client ID metadata document URL ${url.origin} is not https; the gateway fetches metadata documents ` +
              `only over https.`
          : `The client ID metadata document at ${clientId} redirects to a URL that is not https; the gateway ` +
              `follows only https redirects.`,
        `scheme ${url.protocol}`,
      );
    }
    let answer: Awaited<ReturnType<typeof getOnce>>;
    try {
      answer = await getOnce(url, opts, signal, maxBytes);
    } catch (err) {
      if (err instanceof MetadataFetchRefused) throw err;
      if (signal.aborted) {
        throw new MetadataFetchRefused(
          `The client ID metadata document at ${clientId} did not arrive within ${timeoutMs / 1000} s.`,
          'deadline passed',
        );
      }
      const cause = err as { cause?: unknown };
      if (cause.cause instanceof MetadataFetchRefused) throw cause.cause;
      throw new MetadataFetchRefused(
        `The client ID metadata document at ${clientId} could not be fetched.`,
        String((err as Error).message ?? err),
      );
    }
    if ([301, 302, 303, 307, 308].includes(answer.status) && answer.location) {
      if (hop >= maxRedirects) {
        throw new MetadataFetchRefused(
          `The client ID metadata document at ${clientId} redirects more than ${maxRedirects} times.`,
          'too many redirects',
        );
      }
      try {
        url = new URL(answer.location, url);
      } catch {
        throw new MetadataFetchRefused(
          `The client ID metadata document at ${clientId} redirects to a URL that is not valid.`,
          `Location ${answer.location.slice(0, 200)}`,
        );
      }
      continue;
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw new MetadataFetchRefused(
        `The client ID metadata document at ${clientId} answered HTTP ${answer.status}.`,
        `status ${answer.status}`,
      );
    }
    return answer.body.toString('utf8');
  }
}
