// Hostile input (issue 19, docs/security.md): each defect the fuzzing found, reproduced through the real
// server on this store. Bad input answers a 4xx envelope naming the field; nothing is stored that a later
// read cannot answer.
import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/server/errors.js';
import { createTenant, startGateway, type CallResult, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { artifactBody } from '../areas/artifacts/helpers.js';
import { canonical, variant, type Doc } from '../areas/sessions/fixtures.js';

let gw: TestGateway;
let t: Tenant;
let item: { id: string; number: number };

const auth = () => ({ token: t.factoryKey, appId: t.appId });
/** POST/PUT/PATCH a JSON text sent as is (so `1e999` reaches the parser as written). */
const rawJson = (method: 'POST' | 'PUT' | 'PATCH', url: string, json: string) =>
  gw.call(method, url, { ...auth(), raw: json, headers: { 'content-type': 'application/json' } });

function expectRefused(r: CallResult, status: number, code: string, path?: string): void {
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(typeof r.body.error.message).toBe('string');
  if (path !== undefined) expect(r.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
}

let listening: string | null = null;
/** The gateway on a real socket (the OAuth handlers read the request stream; tests of Node's parser need one). */
async function baseUrl(): Promise<string> {
  if (!listening) {
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    listening = `http://127.0.0.1:${(gw.app.server.address() as net.AddressInfo).port}`;
  }
  return listening;
}

async function expectOk(url: string): Promise<CallResult> {
  const r = await gw.call('GET', url, auth());
  expect(r.status, `${url}: ${r.text.slice(0, 300)}`).toBe(200);
  return r;
}

beforeAll(async () => {
  gw = await startGateway();
  t = await createTenant(gw);
  const r = await gw.call('POST', '/v1/work-items', {
    ...auth(),
    body: { tracker: 'github', trackerKey: 'acme/api#1', title: 'Item', repository: 'acme/api' },
  });
  expect(r.status, r.text).toBe(201);
  item = r.body.data;
});
afterAll(async () => {
  await gw?.close();
});

describe('1. numbers that are not finite or do not fit their column', () => {
  it('a finding line of 1e999 (Infinity) or 2^31 is refused naming the field; the list still reads', async () => {
    const base = '"source":"ci","about":"change","severity":"low","title":"t","path":"src/a.ts"';
    for (const line of ['1e999', '-1e999', '1e308', '2147483648', '123456789012345678901234567890']) {
      const r = await rawJson('POST', `/v1/work-items/${item.id}/findings`, `{${base},"line":${line}}`);
      expectRefused(r, 400, 'invalid_request_body', 'line');
    }
    const ok = await rawJson('POST', `/v1/work-items/${item.id}/findings`, `{${base},"line":2147483647}`);
    expect(ok.status, ok.text).toBe(201);
    const list = await expectOk(`/v1/work-items/${item.id}/findings`);
    expect(list.body.data.map((f: { line: number }) => f.line)).toEqual([2147483647]);
  });

  it('a pull request number of 1e999, 2^31 or 2^53+1 is refused; 2^31-1 is stored; the lists still read', async () => {
    for (const n of ['1e999', '2147483648', '9007199254740993']) {
      const r = await rawJson(
        'POST',
        `/v1/work-items/${item.id}/pull-requests`,
        `{"repository":"acme/api","number":${n}}`,
      );
      expectRefused(r, 400, 'invalid_request_body', 'number');
    }
    const ok = await rawJson(
      'POST',
      `/v1/work-items/${item.id}/pull-requests`,
      '{"repository":"acme/api","number":2147483647}',
    );
    expect(ok.status, ok.text).toBe(201);
    const prs = await expectOk(`/v1/work-items/${item.id}/pull-requests`);
    expect(prs.body.data.map((p: { number: number }) => p.number)).toEqual([2147483647]);
    await expectOk(`/v1/work-items/${item.id}/artifacts`);
  });

  it('a specNumber of 1e300 is refused; 2^53-1 (a bigint column) is kept exactly; the list still reads', async () => {
    const r = await rawJson(
      'POST',
      '/v1/work-items',
      '{"tracker":"github","trackerKey":"acme/api#big","title":"x","specNumber":1e300}',
    );
    expectRefused(r, 400, 'invalid_request_body', 'specNumber');
    const beyond = await rawJson(
      'POST',
      '/v1/work-items',
      '{"tracker":"github","trackerKey":"acme/api#big","title":"x","specNumber":9007199254740993}',
    );
    expectRefused(beyond, 400, 'invalid_request_body', 'specNumber');
    const ok = await rawJson(
      'POST',
      '/v1/work-items',
      '{"tracker":"github","trackerKey":"acme/api#big","title":"x","specNumber":9007199254740991}',
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.specNumber).toBe(9007199254740991);
    const list = await expectOk('/v1/work-items');
    expect(list.body.data.find((w: { trackerKey: string }) => w.trackerKey === 'acme/api#big').specNumber).toBe(
      9007199254740991,
    );
  });

  it('an artifact turnIndex of 1e999 is refused; the artifact list still reads', async () => {
    const body = JSON.stringify(
      artifactBody(Buffer.from('png bytes'), { session: { sessionId: 'sess-1', turnIndex: 7 } }),
    ).replace('"turnIndex":7', '"turnIndex":1e999');
    expectRefused(
      await rawJson('POST', '/v1/artifacts', body),
      400,
      'invalid_request_body',
      'artifact.session.turnIndex',
    );
    await expectOk('/v1/artifacts?repository=acme/api&prNumber=7');
  });

  it('a session whose chunk, PR number or turn tokens do not fit is refused with a reason; others kept', async () => {
    const good = variant(canonical('full'), (d: Doc) => {
      d.id = `fits-${crypto.randomUUID()}`;
    });
    const bigChunk = variant(canonical('full'), (d: Doc) => {
      d.id = 'big-chunk';
      d.chunk = { of: 2147483648, part: 1, counts: { turns: 1, toolCalls: 0, errors: 0 } };
    });
    const bigPr = variant(canonical('full'), (d: Doc) => {
      d.id = 'big-pr';
      d.outcome = { prNumber: 2147483648 };
    });
    // A pr_linked event's data is an open object in the schema; its PR lands in the same integer column.
    const bigEventPr = variant(canonical('full'), (d: Doc) => {
      d.id = 'big-event-pr';
      d.events = [{ type: 'pr_linked', seq: 1, ts: '2026-07-01T14:41:00.000Z', data: { prNumber: 2147483648 } }];
    });
    const body = JSON.stringify({
      schemaVersion: 1,
      sessions: [
        good,
        bigChunk,
        bigPr,
        variant(canonical('full'), (d: Doc) => {
          d.id = 'inf-tokens';
          d.turns[1].usage.in = 424242;
        }),
        bigEventPr,
      ],
    }).replace('"in":424242', '"in":1e999');
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: t.loginToken,
      appId: t.appId,
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const rejected = r.body.data.rejected as { index: number; reason: string }[];
    expect(rejected.map((x) => x.index)).toEqual([1, 2, 3, 4]);
    expect(rejected[0]!.reason).toMatch(/chunk\.of/);
    expect(rejected[1]!.reason).toMatch(/outcome\.prNumber/);
    expect(rejected[2]!.reason).toMatch(/turns\.1\.usage\.in/);
    expect(rejected[3]!.reason).toBe('events.0.data.prNumber must be <= 2147483647');
    const list = await expectOk('/v1/sessions?repoScope=all&limit=100');
    expect(list.body.data.sessions.map((x: { sessionId: string }) => x.sessionId)).toContain(good.id);
  });

  it('query integers out of range are refused, not handed to the store', async () => {
    for (const q of ['limit=1e999', 'offset=1e309', 'offset=99999999999', 'limit=NaN', 'limit=Infinity']) {
      expectRefused(
        await gw.call('GET', `/v1/work-items/${item.id}/findings?${q}`, auth()),
        400,
        'invalid_query_params',
      );
    }
    expectRefused(await gw.call('GET', '/v1/prs/acme/api/2147483648', auth()), 400, 'invalid_path_params');
    expectRefused(
      await gw.call('GET', '/v1/artifacts?repository=acme/api&prNumber=1e999', auth()),
      400,
      'invalid_query_params',
    );
  });
});

describe('2. audit-log page', () => {
  it('page=Infinity, 1e309 or beyond the bound → 400 invalid_query_params', async () => {
    for (const page of ['Infinity', '1e309', '-Infinity', '10001', '99999999999999999999']) {
      const r = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?page=${page}`, { token: t.managementKey });
      expectRefused(r, 400, 'invalid_query_params', 'page');
    }
    const ok = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?page=10000`, { token: t.managementKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual([]);
  });
});

describe('3. NUL (U+0000) is refused everywhere, alike on both stores', () => {
  it('in a JSON body string, nested or as a key, naming the field', async () => {
    expectRefused(
      await gw.call('POST', '/v1/work-items', {
        ...auth(),
        body: { tracker: 'github', trackerKey: 'k\u0000', title: 'x' },
      }),
      400,
      'invalid_request_body',
      'trackerKey',
    );
    expectRefused(
      await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(), body: { title: 'a\u0000b' } }),
      400,
      'invalid_request_body',
      'title',
    );
    expectRefused(
      await gw.call('PUT', `/v1/work-items/${item.id}/criteria`, {
        ...auth(),
        body: {
          criteria: [
            { id: 'c1', text: 'ok' },
            { id: 'c2', text: '\u0000' },
          ],
        },
      }),
      400,
      'invalid_request_body',
      'criteria.1.text',
    );
    expectRefused(
      await gw.call('POST', '/v1/hosts/heartbeat', { ...auth(), body: { 'host\u0000Id': 'h', name: 'n' } }),
      400,
      'invalid_request_body',
      'host\u0000Id',
    );
    // Of several bad fields the first is named: sibling keys in order, before anything nested.
    expectRefused(
      await gw.call('POST', '/v1/hosts/heartbeat', { ...auth(), body: { 'a\u0000': 'h', 'b\u0000': 'n' } }),
      400,
      'invalid_request_body',
      'a\u0000',
    );
    expectRefused(
      await gw.call('POST', '/v1/work-items', {
        ...auth(),
        body: { tracker: 'github', trackerKey: 'k\u0000', title: 'x\u0000' },
      }),
      400,
      'invalid_request_body',
      'trackerKey',
    );
    expectRefused(
      await gw.call('POST', '/v1/api-keys', {
        token: t.loginToken,
        appId: t.appId,
        body: { name: 'ci\u0000', preset: 'ingest' },
      }),
      400,
      'invalid_request_body',
      'name',
    );
    expectRefused(
      await gw.call('POST', '/v1/admin/orgs', { token: gw.adminToken, body: { name: 'o\u0000' } }),
      400,
      'invalid_request_body',
      'name',
    );
    // Nothing was stored: the item keeps its title.
    const read = await expectOk(`/v1/work-items/${item.id}`);
    expect(read.body.data.title).toBe('Item');
  });

  it('in query filters and path parameters', async () => {
    expectRefused(
      await gw.call('GET', '/v1/sessions?repoScope=all&branch=%00', auth()),
      400,
      'invalid_query_params',
      'branch',
    );
    expectRefused(await gw.call('GET', '/v1/metrics/overview?repo=a%00b', auth()), 400, 'invalid_query_params', 'repo');
    expectRefused(
      await gw.call('GET', '/v1/context/changes?branch=%00', auth()),
      400,
      'invalid_query_params',
      'branch',
    );
    expectRefused(
      await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?actionType=%00`, { token: t.managementKey }),
      400,
      'invalid_query_params',
      'actionType',
    );
    expectRefused(await gw.call('GET', '/v1/sessions/abc%00def', auth()), 400, 'invalid_path_params', 'traceId');
    expectRefused(await gw.call('DELETE', '/v1/repositories/acme/a%00b', auth()), 400, 'invalid_path_params', 'repo');
  });

  it('in a header', async () => {
    const r = await gw.call('GET', '/v1/work-items', {
      ...auth(),
      headers: { 'x-outerlayer-runner-version': '1.0.0\u0000' },
    });
    expectRefused(r, 400, 'invalid_header', 'x-outerlayer-runner-version');
  });

  it('in an OAuth client_id: RFC 6749 invalid_request with a sentence', async () => {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'abc\u0000',
      redirect_uri: 'http://127.0.0.1/cb',
      code_challenge: 'x',
      code_challenge_method: 'S256',
    });
    const r = await gw.call('GET', `/oauth/authorize?${q.toString()}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(r.body.error_description).toMatch(/client_id contains a NUL character/);
    const token = await fetch(`${await baseUrl()}/oauth/token`, {
      method: 'POST',
      body: 'grant_type=authorization_code&client_id=a%00&code=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('other control characters are text like any other: stored and read back', async () => {
    const title = 'tab\there \u0001\u001f\u007f end';
    const r = await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(), body: { title } });
    expect(r.status, r.text).toBe(200);
    expect((await expectOk(`/v1/work-items/${item.id}`)).body.data.title).toBe(title);
    await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(), body: { title: 'Item' } });
  });
});

describe('4. title search with NUL', () => {
  it('q=ab%00 answers 400 (not 500) once the factory has titled sessions; other odd needles answer 200', async () => {
    const doc = variant(canonical('full'), (d: Doc) => {
      d.id = `titled-${crypto.randomUUID()}`;
      d.title = 'about a bug';
    });
    const sync = await gw.call('POST', '/v1/agents/sync', {
      token: t.loginToken,
      appId: t.appId,
      body: { schemaVersion: 1, sessions: [doc] },
    });
    expect(sync.status, sync.text.slice(0, 300)).toBe(200);
    expect(sync.body.data.rejected).toEqual([]);
    expectRefused(await gw.call('GET', '/v1/sessions?repoScope=all&q=ab%00', auth()), 400, 'invalid_query_params', 'q');
    for (const q of ['ab%01', 'ab%22', '%22%22%22', 'a%5Cb', 'bug%25', 'NEAR(a', '%E2%80%AE%F0%9F%92%A5']) {
      const r = await gw.call('GET', `/v1/sessions?repoScope=all&q=${q}`, auth());
      expect(r.status, `${q}: ${r.text.slice(0, 200)}`).toBe(200);
    }
    const hit = await gw.call('GET', '/v1/sessions?repoScope=all&q=ut%20a%20b', auth());
    expect(hit.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([doc.id]);
  });
});

describe('5. concurrent criteria replacements', () => {
  it('8 parallel PUTs on one item all answer 200 and the list is one of them whole', async () => {
    const lists = Array.from({ length: 8 }, (_, i) => [
      { id: `a${i}`, text: `first ${i}` },
      { id: `b${i}`, text: `second ${i}` },
      { id: 'shared', text: `shared ${i}` },
    ]);
    const answers = await Promise.all(
      lists.map((criteria) => gw.call('PUT', `/v1/work-items/${item.id}/criteria`, { ...auth(), body: { criteria } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const read = await expectOk(`/v1/work-items/${item.id}/criteria`);
    const ids = read.body.data.criteria.map((c: { id: string }) => c.id);
    expect(ids).toHaveLength(3);
    const winner = Number(ids[0].slice(1));
    expect(read.body.data.criteria.map((c: { id: string; text: string }) => ({ id: c.id, text: c.text }))).toEqual(
      lists[winner],
    );
  });
});

describe('6. errors Fastify and Node raise themselves answer the envelope', () => {
  it('bad percent-encoding in the path → 400 invalid_url', async () => {
    const r = await gw.call('GET', '/v1/work-items/%ZZ', auth());
    expectRefused(r, 400, 'invalid_url');
  });

  it('a path parameter over 400 characters → 414 uri_too_long with the limit; 400 reach the route', async () => {
    const r = await gw.call('GET', `/v1/work-items/${'a'.repeat(401)}`, auth());
    expectRefused(r, 414, 'uri_too_long');
    expect(r.body.error.limit).toBe(400);
    // Counted as the router counts, after decoding: 200 characters outside the BMP are 400 units.
    const wide = await gw.call('GET', `/v1/work-items/${encodeURIComponent('𝄞'.repeat(201))}`, auth());
    expectRefused(wide, 414, 'uri_too_long');
    // At the limit the route's own schema answers (a work item's id is at most 64 characters).
    const atLimit = await gw.call('GET', `/v1/work-items/${'a'.repeat(400)}`, auth());
    expectRefused(atLimit, 400, 'invalid_path_params');
  });

  it('a URL over 16 KiB → 431 headers_too_large; non-HTTP bytes → 400 malformed_request (real socket)', async () => {
    const port = Number(new URL(await baseUrl()).port);
    const rawRequest = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
        let out = '';
        socket.on('data', (d) => {
          out += d.toString();
        });
        socket.on('end', () => resolve(out));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
    const long = await rawRequest(`GET /v1/work-items?x=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(long).toMatch(/^HTTP\/1\.1 431 /);
    const body = JSON.parse(long.slice(long.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('headers_too_large');
    const junk = await rawRequest('NOT HTTP AT ALL\r\n\r\n');
    expect(junk).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(junk.slice(junk.indexOf('\r\n\r\n') + 4)).error.code).toBe('malformed_request');
  });

  it('the codes are in the closed list', () => {
    for (const code of [
      'invalid_url',
      'uri_too_long',
      'headers_too_large',
      'malformed_request',
      'request_timeout',
      'invalid_header',
    ]) {
      expect(ERROR_CODES).toHaveProperty(code);
    }
  });
});

describe('7. dates bounded to what the answer can express', () => {
  it('metrics windows outside 1970-01-01..9999-12-31 → 400 naming the parameter', async () => {
    expectRefused(await gw.call('GET', '/v1/metrics/trends?to=0000-01-01', auth()), 400, 'invalid_query_params', 'to');
    expectRefused(
      await gw.call('GET', '/v1/metrics/trends?from=9999-12-01&to=9999-12-31', auth()),
      400,
      'invalid_query_params',
      'to',
    );
    expectRefused(
      await gw.call('GET', '/v1/metrics/overview?from=1969-12-31T23:59:59Z', auth()),
      400,
      'invalid_query_params',
      'from',
    );
    expectRefused(
      await gw.call(
        'GET',
        '/v1/metrics/compare?aFrom=0001-01-01&aTo=2026-01-01&bFrom=2026-01-01&bTo=2026-02-01',
        auth(),
      ),
      400,
      'invalid_query_params',
      'aFrom',
    );
    const ok = await gw.call('GET', '/v1/metrics/trends?from=9999-12-01&to=9999-12-30', auth());
    expect(ok.status, ok.text.slice(0, 200)).toBe(200);
    expect(ok.body.data.window).toEqual({ from: '9999-12-01T00:00:00.000Z', to: '9999-12-31T00:00:00.000Z' });
  });

  it('an overview whose prior window would start before 1970 starts it at 1970-01-01', async () => {
    const r = await gw.call('GET', '/v1/metrics/overview?from=1970-01-02&to=2026-01-01', auth());
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    expect(r.body.data.priorWindow).toEqual({ from: '1970-01-01T00:00:00.000Z', to: '1970-01-02T00:00:00.000Z' });
  });

  it('session list and audit-log dates out of range → 400', async () => {
    expectRefused(
      await gw.call('GET', '/v1/sessions?repoScope=all&from=0000-01-01T00:00:00Z', auth()),
      400,
      'invalid_query_params',
      'from',
    );
    expect(
      (await gw.call('GET', '/v1/sessions?repoScope=all&from=1970-01-01T00:00:00Z&to=9999-12-31T23:59:59Z', auth()))
        .status,
    ).toBe(200);
    const audit = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?startDate=0000-01-01`, {
      token: t.managementKey,
    });
    expectRefused(audit, 400, 'invalid_query_params', 'startDate');
  });
});

describe('8. OAuth error_description is a sentence', () => {
  it('a token request missing its fields says which, in words', async () => {
    const r = await fetch(`${await baseUrl()}/oauth/token`, {
      method: 'POST',
      body: 'grant_type=authorization_code',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_request');
    const d = body.error_description;
    expect(d).not.toMatch(/^\s*[[{]/);
    expect(d).not.toMatch(/"code"|"path"/);
    expect(d).toMatch(/is required/);
    expect(d).toMatch(/\.$/);
  });

  it('a registration with bad metadata says which field', async () => {
    const r = await fetch(`${await baseUrl()}/oauth/register`, {
      method: 'POST',
      body: JSON.stringify({ redirect_uris: 'not a list' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/^redirect_uris is invalid: /i);
    expect(body.error_description).not.toMatch(/[[{]"/);
  });
});

describe('9. keys of prototype pollution', () => {
  // Sent as raw text: JSON.stringify of an object literal drops a `__proto__` key.
  const sync = (sessionsJson: string, extra = '') =>
    rawJson('POST', '/v1/agents/sync', `{"schemaVersion":1,"sessions":[${sessionsJson}]${extra}}`);
  const listed = async (id: string) =>
    (await expectOk('/v1/sessions?repoScope=all&limit=100')).body.data.sessions.some(
      (s: { sessionId: string }) => s.sessionId === id,
    );

  it('__proto__ in a body, or constructor holding a prototype, → 400 naming the key; nothing stored', async () => {
    const doc = (id: string) =>
      JSON.stringify(
        variant(canonical('full'), (d: Doc) => {
          d.id = id;
        }),
      );
    const nested = doc('proto-nested').replace(/^\{/, '{"__proto__":{"polluted":true},');
    expectRefused(await sync(nested), 400, 'invalid_request_body', 'sessions.0.__proto__');
    const r = await sync(doc('proto-top'), ',"constructor":{"prototype":{"polluted":true}}');
    expectRefused(r, 400, 'invalid_request_body', 'constructor');
    expect(r.body.error.message).toMatch(/prototype pollution/);
    expectRefused(
      await rawJson('PATCH', `/v1/work-items/${item.id}`, '{"__proto__":{"title":"polluted"},"title":"x"}'),
      400,
      'invalid_request_body',
      '__proto__',
    );
    expect(await listed('proto-nested')).toBe(false);
    expect(await listed('proto-top')).toBe(false);
    expect((await expectOk(`/v1/work-items/${item.id}`)).body.data.title).toBe('Item');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a key named constructor that holds no prototype is text like any other', async () => {
    const id = `constructor-${crypto.randomUUID()}`;
    const r = await sync(
      JSON.stringify(
        variant(canonical('full'), (d: Doc) => {
          d.id = id;
        }),
      ),
      ',"constructor":"a plain value"',
    );
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
    expect(await listed(id)).toBe(true);
  });
});

describe('10. nesting at the bound of 64 levels', () => {
  it('a body whose deepest array is at level 63 is accepted; one level more → 400 naming where', async () => {
    const doc = (id: string) =>
      JSON.stringify(
        variant(canonical('full'), (d: Doc) => {
          d.id = id;
        }),
      );
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const id = `nested-${crypto.randomUUID()}`;
    // The body is level 0 and its key "x" holds level 1: 63 arrays reach level 63.
    const ok = await rawJson(
      'POST',
      '/v1/agents/sync',
      `{"schemaVersion":1,"sessions":[${doc(id)}],"x":${nested(63)}}`,
    );
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expect(ok.body.data.accepted).toHaveLength(1);
    const deep = await rawJson(
      'POST',
      '/v1/agents/sync',
      `{"schemaVersion":1,"sessions":[${doc(`${id}-deeper`)}],"x":${nested(64)}}`,
    );
    expectRefused(deep, 400, 'invalid_request_body', `x${'.0'.repeat(63)}`);
    expect(deep.body.error.message).toMatch(/nested deeper than 64 levels/);
  });
});

describe('9. unpaired UTF-16 surrogates in a synced session', () => {
  it('are kept as U+FFFD on both stores (PostgreSQL answered 500 for the sync), and read back alike', async () => {
    // JSON's `\ud800` escape: valid JSON, but no Unicode character. PostgreSQL's JSON refuses it (the rows of a
    // sync's insert travel as JSON there), and each driver writes U+FFFD for it in a text column. The body's
    // walk (hostile-input.ts) replaces it with U+FFFD first, so what is counted is what is stored.
    const doc = variant(canonical('full'), (d: Doc) => {
      d.id = 'lone-surrogates';
      d.title = 'fix \ud83d the build';
      d.agent.type = '\ud800claude';
      d.env.gitBranch = 'feat/\udc00x';
      d.models = ['model-\udbff'];
    });
    const r = await gw.call('POST', '/v1/agents/sync', { ...auth(), body: { schemaVersion: 1, sessions: [doc] } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.accepted).toEqual(['lone-surrogates']);
    const list = await expectOk('/v1/sessions?repoScope=all&includeSubagents=1');
    const row = list.body.data.sessions.find((s: { sessionId: string }) => s.sessionId === 'lone-surrogates');
    expect({ title: row.title, agentType: row.agentType, branch: row.branch }).toEqual({
      title: 'fix \ufffd the build',
      agentType: '\ufffdclaude',
      branch: 'feat/\ufffdx',
    });
    expect(row.models).toContain('model-\ufffd');
    const detail = await expectOk('/v1/sessions/lone-surrogates');
    expect(detail.body.data.title).toBe('fix \ufffd the build');
    // Nor does the transcript keep one (JSON.stringify writes an unpaired surrogate as a \udxxx escape).
    expect(JSON.stringify(detail.body.data)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    // The facet the branch went into reads back alike; a filter by the replaced value finds it.
    const byBranch = await expectOk(`/v1/sessions?repoScope=all&branch=${encodeURIComponent('feat/\ufffdx')}`);
    expect(byBranch.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual(['lone-surrogates']);
    // Sent again, grown by a turn (the sync then updates the stored row), and alongside another grown session
    // whose strings are well formed (the batched update keeps its JSON for those): the same.
    const grow = (d: Doc) => {
      d.turns = [...d.turns, { ...d.turns[d.turns.length - 1], index: d.turns.length }];
    };
    const plain = variant(canonical('full'), (d: Doc) => {
      d.id = 'well-formed-beside';
    });
    expect(
      (await gw.call('POST', '/v1/agents/sync', { ...auth(), body: { schemaVersion: 1, sessions: [plain] } })).status,
    ).toBe(200);
    const again = await gw.call('POST', '/v1/agents/sync', {
      ...auth(),
      body: { schemaVersion: 1, sessions: [variant(doc, grow), variant(plain, grow)] },
    });
    expect(again.status, again.text).toBe(200);
    const grown = (await expectOk('/v1/sessions/lone-surrogates')).body.data;
    expect({ agentType: grown.agentType, turns: grown.turnCount }).toEqual({
      agentType: '\ufffdclaude',
      turns: doc.turns.length + 1,
    });
    expect((await expectOk('/v1/sessions/well-formed-beside')).body.data.turnCount).toBe(plain.turns.length + 1);
  });
});
