// GET /v1/sessions/export: the list's rows for the same query, streamed as CSV or JSON, with the list's
// permissions and actor pseudonyms.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { siblingFactory } from '../../helpers/cross-tenant.js';
import { csvField } from '../../../src/server/export.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';

const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500 };

/** A small RFC 4180 reader for the test (quoted fields, doubled quotes, CRLF), independent of the writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

describe('GET /v1/sessions/export', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  let readKey: string;
  let ingestKey: string;
  const as = (tenant: Tenant, token = tenant.factoryKey) => ({ token, appId: tenant.appId });
  const titles = [
    'plain',
    'has, comma',
    'has "quotes"',
    'line\nbreak',
    '=HYPERLINK("http://x")',
    '+1+1',
    '-2',
    '@SUM(A1)',
  ];

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
  beforeAll(async () => {
    const mint = async (preset: string) =>
      (await gw.call('POST', '/v1/api-keys', { token: t.loginToken, appId: t.appId, body: { name: preset, preset } }))
        .body.data.plaintext_key as string;
    readKey = await mint('read-only');
    ingestKey = await mint('ingest');
    const docs = [];
    // 1205 sessions: more than two export pages (500), so the keyset paging is crossed twice.
    for (let i = 0; i < 1205; i++) {
      docs.push(
        sessionDoc({
          // equal start times: ties broken by id
          startedAt: new Date(Date.UTC(2026, 9, 1) + (i % 600) * 3_600_000).toISOString(),
          repo: i % 3 === 0 ? 'acme/web' : 'acme/api',
          branch: i % 2 ? 'main' : 'feat/x',
          title: titles[i % titles.length]!,
          turns: Array.from({ length: 1 + (i % 4) }, () => turn),
        }),
      );
    }
    await ingest(gw, as(t), docs);
    await ingest(gw, as(other), [
      sessionDoc({ startedAt: '2026-10-02T00:00:00Z', repo: 'acme/api', title: 'other factory', turns: [turn] }),
    ]);
  }, 120_000);

  /** The list's rows for a query, all pages. */
  async function listAll(query: string, token = t.factoryKey): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let offset = 0; ; offset += 100) {
      const r = await gw.call('GET', `/v1/sessions?${query}&limit=100&offset=${offset}`, as(t, token));
      expect(r.status).toBe(200);
      out.push(...r.body.data.sessions);
      if (r.body.data.sessions.length < 100) return out;
    }
  }

  it('JSON: exactly the list rows for the same filters and order', async () => {
    for (const query of [
      'repoScope=all',
      'repo=acme/api&branch=main&sort=cost&dir=asc',
      'repoScope=all&q=comma',
      `repo=acme/web&actor=${t.ownerId}`,
    ]) {
      const r = await gw.call('GET', `/v1/sessions/export?format=json&${query}`, as(t));
      expect(r.status, query).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(r.headers['content-disposition']).toBe(
        `attachment; filename="sessions.json"; filename*=UTF-8''sessions.json`,
      );
      const listed = await listAll(query);
      expect(listed.length).toBeGreaterThan(0);
      expect(r.body).toEqual(listed);
    }
    const all = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', as(t));
    expect(all.body).toHaveLength(1205);
    expect(new Set(all.body.map((s: { traceId: string }) => s.traceId)).size).toBe(1205);
  });

  it('CSV: a header and one line per list row, with commas, quotes, line breaks and formulas escaped', async () => {
    const r = await gw.call('GET', '/v1/sessions/export?repoScope=all&sort=turns', as(t));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toContain('filename="sessions.csv"');
    const rows = parseCsv(r.text);
    const header = rows[0]!;
    expect(header.slice(0, 3)).toEqual(['traceId', 'sessionId', 'startedAt']);
    const listed = await listAll('repoScope=all&sort=turns');
    expect(rows.length - 1).toBe(listed.length);
    const col = (name: string) => header.indexOf(name);
    rows.slice(1).forEach((row, i) => {
      const s = listed[i]!;
      expect(row).toHaveLength(header.length);
      expect(row[col('traceId')]).toBe(s.traceId);
      expect(Number(row[col('costUsd')])).toBe(s.costUsd);
      expect(Number(row[col('turnCount')])).toBe(s.turnCount);
      expect(row[col('actorId')]).toBe(s.actorId);
      const title = s.title as string;
      // Formula-looking text gains a leading apostrophe; anything else reads back exactly.
      expect(row[col('title')]).toBe(/^[=+\-@]/.test(title) ? `'${title}` : title);
    });
    // The raw bytes: quoted where needed, quotes doubled.
    expect(r.text).toContain('"has, comma"');
    expect(r.text).toContain('"has ""quotes"""');
    expect(r.text).toContain('"line\nbreak"');
    expect(r.text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(r.text).toContain(",'+1+1,");
    expect(r.text).toContain(",'-2,");
    expect(r.text).toContain(",'@SUM(A1),");
  });

  it('csvField escapes by hand-written expectations', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('@x,y')).toBe(`"'@x,y"`);
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField(-2)).toBe('-2');
    expect(csvField(null)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it('anonymizes actors without sessions.read_team, as the list does, and refuses the actor filter', async () => {
    const r = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', as(t, readKey));
    expect(r.status).toBe(200);
    const pseudonym = (id: string) =>
      `anon-${crypto.createHmac('sha256', gw.app.attest.anonSecret).update(id).digest('hex').slice(0, 16)}`;
    expect(r.body).toHaveLength(1205);
    for (const s of r.body) {
      expect(s.actorId).toBe(pseudonym(t.ownerId));
      expect(s.actorName).toBe('anonymous');
    }
    expect(r.body).toEqual(await listAll('repoScope=all', readKey));
    const csv = await gw.call('GET', '/v1/sessions/export?repoScope=all', as(t, readKey));
    expect(csv.text).not.toContain(t.ownerId);
    expect(csv.text).toContain(`,${pseudonym(t.ownerId)},anonymous,`);
    const actor = await gw.call('GET', `/v1/sessions/export?repoScope=all&actor=${t.ownerId}`, as(t, readKey));
    expect(actor.status).toBe(400);
    expect(actor.body.error.code).toBe('actor_filter_forbidden');
  });

  it('refuses without sessions.read, without a credential, and for bad queries', async () => {
    const noRead = await gw.call('GET', '/v1/sessions/export', as(t, ingestKey));
    expect(noRead.status).toBe(403);
    expect(noRead.body.error.code).toBe('forbidden');
    const anon = await gw.call('GET', '/v1/sessions/export', { appId: t.appId });
    expect(anon.status).toBe(401);
    const wrong = await gw.call('GET', '/v1/sessions/export', { token: 'sk_outerlayer_nope', appId: t.appId });
    expect(wrong.status).toBe(401);
    for (const [query, code] of [
      ['format=xml', 'invalid_query_params'],
      ['limit=5', 'invalid_query_params'],
      ['pr=1', 'pr_filter_unsupported'],
      ['from=2026-10-05T00:00:00Z&to=2026-10-01T00:00:00Z', 'invalid_date_range'],
    ] as const) {
      const r = await gw.call('GET', `/v1/sessions/export?${query}`, as(t));
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe(code);
    }
  });

  it('another factory sees only its own sessions; a key of one factory cannot read another', async () => {
    const r = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', as(other));
    expect(r.body.map((s: { title: string }) => s.title)).toEqual(['other factory']);
    const cross = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', {
      token: other.factoryKey,
      appId: t.appId,
    });
    expect(cross.status).toBeGreaterThanOrEqual(401);
    expect(cross.status).toBeLessThan(500);
    expect(cross.text).not.toContain('HYPERLINK');
  });

  it('a sibling factory of the same org exports only its own sessions, and its key cannot read this one', async () => {
    const sibling = await siblingFactory(gw, t);
    await ingest(gw, { token: sibling.factoryKey, appId: sibling.appId }, [
      sessionDoc({ startedAt: '2026-10-03T00:00:00Z', repo: 'acme/api', title: 'sibling factory', turns: [turn] }),
    ]);
    for (const token of [sibling.factoryKey, sibling.loginToken]) {
      const r = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', { token, appId: sibling.appId });
      expect(r.status).toBe(200);
      expect(r.body.map((s: { title: string }) => s.title)).toEqual(['sibling factory']);
    }
    const named = await gw.call('GET', '/v1/sessions/export?format=json&repoScope=all', {
      token: sibling.factoryKey,
      appId: t.appId,
    });
    expect(named.status).toBe(401);
    expect(named.text).not.toContain('sibling factory');
  });

  it('is in the OpenAPI document with its media types (and the PR export too)', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    for (const path of ['/v1/sessions/export', '/v1/prs/{owner}/{repo}/{number}/export']) {
      const op = doc.paths[path]?.get;
      expect(op, path).toBeDefined();
      expect(Object.keys(op.responses['200'].content).sort(), path).toEqual(['application/json', 'text/csv']);
      expect(
        op.parameters.map((p: { name: string }) => p.name),
        path,
      ).toContain('format');
    }
  });
});
