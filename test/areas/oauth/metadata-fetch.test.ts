// Issue 19 item 10: a client_id URL (client ID metadata document) cannot aim the gateway at its own network.
// Servers here are real https/http servers on loopback addresses. Through the gateway (the authorize
// endpoint): loopback refused by default, allowed with ATTEST_OAUTH_ALLOW_PRIVATE_METADATA=1, too-large and
// too-slow documents refused even then. Redirect hops need a "public" first host; a loopback server stands
// in for one through the fetcher's test-only `treatAsPublic` (one exact address and port), because nothing
// public is reachable from the test machine. The hop after it is then judged by the real rules.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchMetadataDocument,
  isPublicAddress,
  MetadataFetchRefused,
  type MetadataFetchOptions,
} from '../../../src/areas/oauth/metadata-fetch.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

const TLS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/tls');
const CERT = fs.readFileSync(path.join(TLS_DIR, 'loopback.crt'));
const KEY = fs.readFileSync(path.join(TLS_DIR, 'loopback.key'));
const REDIRECT = 'http://127.0.0.1:7/callback';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, self: string) => void;

/** A server on 127.0.0.1 that counts the requests it receives (a refused fetch must never reach it). */
interface DocServer {
  origin: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function serve(kind: 'http' | 'https', handler: Handler): Promise<DocServer> {
  const hits: string[] = [];
  let origin = '';
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    hits.push(req.url ?? '');
    handler(req, res, origin);
  };
  const server =
    kind === 'https' ? https.createServer({ cert: CERT, key: KEY }, onRequest) : http.createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  origin = `${kind}://127.0.0.1:${port}`;
  return {
    origin,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function doc(clientId: string) {
  return {
    client_id: clientId,
    client_name: 'Doc Client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'none',
  };
}

const documents: Handler = (req, res, self) => {
  if (req.url === '/client.json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(`${self}/client.json`)));
  } else if (req.url === '/wrong-id.json') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc(`${self}/other.json`)));
  } else if (req.url === '/huge.json') {
    // 70 KiB, chunked (no Content-Length): the limit must hold while streaming.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = ' '.repeat(1024);
    for (let i = 0; i < 70; i++) res.write(chunk);
    res.end('{}');
  } else if (req.url === '/slow.json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"client_id":'); // and nothing more: a trickle that never ends
  } else {
    res.writeHead(404).end('{}');
  }
};

describe('client ID metadata documents through the gateway', () => {
  let strict: TestGateway;
  let lenient: TestGateway;
  let plain: DocServer;
  let tls: DocServer;
  // The OAuth handlers answer through the raw Node response (an Express bridge), so these calls go over a
  // socket to a listening gateway rather than through app.inject.
  const origins = new Map<TestGateway, string>();
  async function listening(env: Record<string, string> = {}): Promise<TestGateway> {
    const gw = await startGateway({ env });
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    origins.set(gw, `http://127.0.0.1:${(gw.app.server.address() as net.AddressInfo).port}`);
    return gw;
  }
  beforeAll(async () => {
    strict = await listening();
    lenient = await listening({ ATTEST_OAUTH_ALLOW_PRIVATE_METADATA: '1' });
    plain = await serve('http', documents);
    tls = await serve('https', documents);
  });
  afterAll(async () => {
    await strict?.close();
    await lenient?.close();
    await plain?.close();
    await tls?.close();
  });

  async function authorize(
    gw: TestGateway,
    clientId: string,
  ): Promise<{ status: number; text: string; body: { error?: string; error_description?: string } }> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${origins.get(gw)}/oauth/authorize?${query}`, { redirect: 'manual' });
    const text = await res.text();
    let body = {};
    try {
      body = JSON.parse(text) as object;
    } catch {
      /* the consent page is HTML */
    }
    return { status: res.status, text, body };
  }

  async function expectRefused(gw: TestGateway, clientId: string, sentence: string | RegExp) {
    const res = await authorize(gw, clientId);
    expect(res.status, clientId).toBe(400);
    expect(res.body.error, clientId).toBe('invalid_client');
    if (typeof sentence === 'string') expect(res.body.error_description, clientId).toBe(sentence);
    else expect(res.body.error_description, clientId).toMatch(sentence);
  }

  it('by default refuses loopback, private, link-local and mapped addresses, and never connects to them', async () => {
    const notPublic = (origin: string) =>
      `The client ID metadata document at ${origin} was not fetched: its host does not resolve to a public address, ` +
      `and the gateway fetches metadata documents only from public https addresses.`;
    const port = tls.port;
    for (const origin of [
      `https://127.0.0.1:${port}`,
      `https://localhost:${port}`,
      `https://[::1]:${port}`,
      `https://[::ffff:127.0.0.1]:${port}`,
      'https://169.254.169.254',
      'https://10.0.0.1',
      'https://192.168.1.1',
      'https://100.64.0.1',
      'https://[fd00::1]',
      'https://[fe80::1]',
      'https://0.0.0.0',
    ]) {
      await expectRefused(strict, `${origin}/client.json`, notPublic(new URL(origin).origin));
    }
    expect(tls.hits).toEqual([]);
    await expectRefused(
      strict,
      `${plain.origin}/client.json`,
      `The client ID metadata document URL ${plain.origin} is not https; the gateway fetches metadata documents only ` +
        `over https.`,
    );
    expect(plain.hits).toEqual([]);
  });

  it('with ATTEST_OAUTH_ALLOW_PRIVATE_METADATA=1 a loopback document is fetched and its client named', async () => {
    const res = await authorize(lenient, `${plain.origin}/client.json`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('Doc Client');
    expect(plain.hits).toContain('/client.json');
  });

  it('even then, a document over 64 KiB is refused while it streams', async () => {
    await expectRefused(
      lenient,
      `${plain.origin}/huge.json`,
      `The client ID metadata document at ${plain.origin}/huge.json is larger than 64 KiB, the most the gateway reads.`,
    );
  });

  it('even then, a document that does not arrive within 5 s is refused', async () => {
    await expectRefused(
      lenient,
      `${plain.origin}/slow.json`,
      `The client ID metadata document at ${plain.origin}/slow.json did not arrive within 5 s.`,
    );
  }, 15_000);

  it('even then, a missing document and one that does not name itself are refused with a sentence', async () => {
    await expectRefused(
      lenient,
      `${plain.origin}/missing.json`,
      `The client ID metadata document at ${plain.origin}/missing.json answered HTTP 404.`,
    );
    await expectRefused(
      lenient,
      `${plain.origin}/wrong-id.json`,
      `The client ID metadata document at ${plain.origin}/wrong-id.json must name its own URL as client_id.`,
    );
  });
});

describe('the fetcher: DNS answers and redirect hops', () => {
  let first: DocServer;
  let second: DocServer;
  beforeAll(async () => {
    // `first` plays the public host; what it answers depends on the path.
    second = await serve('https', documents);
    first = await serve('https', (req, res, self) => {
      const to = (location: string) => res.writeHead(302, { location }).end();
      if (req.url === '/to-loopback') return to(`${second.origin}/client.json`);
      if (req.url === '/to-name') return to(`https://internal.test:${second.port}/client.json`);
      if (req.url === '/to-http') return to(`http://127.0.0.1:${second.port}/client.json`);
      if (req.url === '/to-self') return to('/client.json');
      if (req.url?.startsWith('/loop')) return to(`/loop${Number(req.url.slice(5) || 0) + 1}`);
      return documents(req, res, self);
    });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  const dnsTable: Record<string, string[]> = {
    'public.test': ['127.0.0.1'],
    'internal.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'rebind.test': ['93.184.215.14', '127.0.0.1'],
    'mapped.test': ['::ffff:10.1.2.3'],
    'ula.test': ['fd12:3456::1'],
    'cgnat.test': ['100.100.100.100'],
  };
  const options = (): MetadataFetchOptions => ({
    allowPrivate: false,
    ca: CERT,
    resolve: async (host) => {
      const found = dnsTable[host];
      if (!found) throw new Error(`no such host ${host}`);
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    // Only `first` counts as public, and only when reached by that exact address and port.
    treatAsPublic: (address, port) => address === '127.0.0.1' && port === first.port,
  });

  async function refusal(url: string, opts: MetadataFetchOptions = options()): Promise<MetadataFetchRefused> {
    const err = await fetchMetadataDocument(url, opts).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, url).toBeInstanceOf(MetadataFetchRefused);
    return err as MetadataFetchRefused;
  }

  it('connects to the address its own lookup checked (public.test exists only in the test resolver)', async () => {
    const text = await fetchMetadataDocument(`https://public.test:${first.port}/client.json`, options());
    expect(JSON.parse(text).client_name).toBe('Doc Client');
  });

  it('follows a redirect to a public address', async () => {
    const text = await fetchMetadataDocument(`${first.origin}/to-self`, options());
    expect(JSON.parse(text).client_id).toBe(`${first.origin}/client.json`);
  });

  it('refuses a redirect from a public host to loopback, by literal or by name, and never reaches it', async () => {
    expect((await refusal(`${first.origin}/to-loopback`)).detail).toBe(
      '127.0.0.1 resolved to 127.0.0.1, which is not public',
    );
    expect((await refusal(`${first.origin}/to-name`)).detail).toBe(
      'internal.test resolved to 127.0.0.1, which is not public',
    );
    expect(second.hits).toEqual([]);
  });

  it('refuses a redirect to http, and more than 3 redirects', async () => {
    expect((await refusal(`${first.origin}/to-http`)).sentence).toBe(
      `The client ID metadata document at ${first.origin}/to-http redirects to a URL that is not https; the gateway ` +
        `follows only https redirects.`,
    );
    expect((await refusal(`${first.origin}/loop`)).sentence).toBe(
      `The client ID metadata document at ${first.origin}/loop redirects more than 3 times.`,
    );
    // Exactly 4 requests: the first and 3 followed redirects, then it stops.
    expect(first.hits.filter((h) => h.startsWith('/loop'))).toEqual(['/loop', '/loop1', '/loop2', '/loop3']);
    expect(second.hits).toEqual([]);
  });

  it('refuses names resolving to metadata service, public+loopback mix, IPv4-mapped, ULA, CGNAT', async () => {
    for (const [host, bad] of [
      ['metadata.test', '169.254.169.254'],
      ['rebind.test', '127.0.0.1'],
      ['mapped.test', '::ffff:10.1.2.3'],
      ['ula.test', 'fd12:3456::1'],
      ['cgnat.test', '100.100.100.100'],
    ]) {
      expect((await refusal(`https://${host}/client.json`)).detail).toBe(
        `${host} resolved to ${bad}, which is not public`,
      );
    }
    // A name that does not resolve gets the same sentence as a private one (no probe of internal DNS).
    const unknown = await refusal('https://nowhere.test/client.json');
    const privateOne = await refusal('https://metadata.test/client.json');
    expect(unknown.sentence.replace('nowhere.test', 'X')).toBe(privateOne.sentence.replace('metadata.test', 'X'));
  });

  it('bounds the time of the whole fetch and the size of the body', async () => {
    expect((await refusal(`${first.origin}/slow.json`, { ...options(), timeoutMs: 300 })).detail).toBe(
      'deadline passed',
    );
    expect((await refusal(`${first.origin}/huge.json`, { ...options(), maxBytes: 4096 })).detail).toBe(
      'more than 4096 bytes streamed',
    );
  });
});

describe('which addresses are public', () => {
  it('refuses the special-purpose ranges and their IPv6 forms; accepts ordinary unicast', () => {
    const notPublic = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '100.64.0.1',
      '100.127.255.255',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.255',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.1',
      '198.18.0.1',
      '::',
      '::1',
      'fc00::1',
      'fdff::1',
      'fe80::1',
      'febf::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:0:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '2001::1',
      '2001:db8::1',
      'not an address',
    ];
    const isPublic = [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '169.255.0.1',
      '93.184.215.14',
      '2606:4700:4700::1111',
      '2a00:1450::1',
      '::ffff:8.8.8.8',
    ];
    for (const a of notPublic) expect(isPublicAddress(a), a).toBe(false);
    for (const a of isPublic) expect(isPublicAddress(a), a).toBe(true);
  });
});
