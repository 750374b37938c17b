// DATABASE_URL in libpq's Unix-socket form (`postgres://user@/db?host=/var/run/postgresql`), which `pg`
// connects with, is not a WHATWG URL: the gateway used to refuse to start on it with "Invalid URL", because it
// parsed the URL only to hide its password in the start-up log. On one box the socket is the cheaper way to
// reach PostgreSQL (docs/performance.md, Ingest).
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { withoutPassword } from '../../src/db/connection.js';
import { createTenant, startGateway, usingPostgres } from '../helpers/gateway.js';
import { raw, rawNames } from '../areas/sessions/fixtures.js';

describe('the database URL in the start-up log', () => {
  it('hides the password wherever the URL carries one, and keeps the rest as written', () => {
    expect(withoutPassword('postgres://attest:s3cret@db.internal:5432/attest')).toBe(
      'postgres://attest:***@db.internal:5432/attest',
    );
    expect(withoutPassword('postgresql://attest:p%40ss@db/attest?sslmode=require')).toBe(
      'postgresql://attest:***@db/attest?sslmode=require',
    );
    // A password holding an unencoded `/`, `@`, `?` or `#` (malformed, but it must not leak) is still hidden whole.
    expect(withoutPassword('postgres://attest:a/b@c@db/attest')).toBe('postgres://attest:***@db/attest');
    expect(withoutPassword('postgres://attest:a?b#c@db/attest')).toBe('postgres://attest:***@db/attest');
    expect(withoutPassword('postgres://attest:pw@/attest?host=/var/run/postgresql&password=other')).toBe(
      'postgres://attest:***@/attest?host=/var/run/postgresql&password=***',
    );
    expect(withoutPassword('postgres://attest@%2Fvar%2Frun%2Fpostgresql/attest')).toBe(
      'postgres://attest@%2Fvar%2Frun%2Fpostgresql/attest',
    );
    expect(withoutPassword('postgres://127.0.0.1:5432/attest')).toBe('postgres://127.0.0.1:5432/attest');
  });
});

describe.skipIf(!usingPostgres)('PostgreSQL over its Unix socket', () => {
  it('starts on a libpq socket URL (user, no host), stores and lists a session, logs no password', async (ctx) => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const dirs = (await admin.query<{ unix_socket_directories: string }>('show unix_socket_directories')).rows[0]!
      .unix_socket_directories;
    await admin.end();
    const dir = dirs
      .split(',')
      .map((d) => d.trim())
      .find((d) => d.startsWith('/'));
    if (!dir) return ctx.skip('this PostgreSQL server listens on no Unix socket');

    // Trust authentication ignores the password, so it is there only to be hidden in the log.
    const url = `postgres://${target.username || 'postgres'}:not-for-the-log@${target.pathname}?host=${dir}`;
    const lines: Record<string, unknown>[] = [];
    const gw = await startGateway({
      env: { DATABASE_URL: url },
      logStream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    try {
      const ready = lines.find((l) => l.msg === 'store ready');
      expect(ready?.dialect).toBe('postgres');
      expect(String(ready?.store)).toMatch(
        new RegExp(
          `^postgres://${target.username || 'postgres'}:\\*\\*\\*@${target.pathname}\\?host=${dir} \\(schema `,
        ),
      );
      expect(JSON.stringify(lines)).not.toContain('not-for-the-log');

      const t = await createTenant(gw);
      const session = { ...raw(rawNames()[0]!, 'redacted'), id: 'over-the-socket' };
      const synced = await gw.call('POST', '/v1/agents/sync', {
        token: t.factoryKey,
        appId: t.appId,
        body: { schemaVersion: 1, sessions: [session] },
      });
      expect(synced.status).toBe(200);
      expect((synced.body as { data: { accepted: string[] } }).data.accepted).toEqual(['over-the-socket']);
      const list = await gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1', {
        token: t.loginToken,
        appId: t.appId,
      });
      expect(list.status).toBe(200);
      expect(
        (list.body as { data: { sessions: { sessionId: string }[] } }).data.sessions.map((s) => s.sessionId),
      ).toEqual(['over-the-socket']);
    } finally {
      await gw.close();
    }
  });
});
