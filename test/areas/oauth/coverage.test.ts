// 5xx answered by the OAuth endpoints themselves: the MCP SDK handlers behind /oauth/* answer an
// unexpected failure of our provider (here: its table is gone) with 500 server_error on their own, past
// the gateway's error handler. That answer must leak nothing (no SQL, no stack) and must still be logged
// at error level with the request id the client sees in X-Request-Id.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/server/clock.js';
import { loadConfig } from '../../../src/server/config.js';
import type { App } from '../../../src/server/context.js';
import { testTempDir } from '../../helpers/tmp.js';

describe('OAuth endpoints: an unexpected failure answers 500 without leaking and is logged with the request id', () => {
  let app: App;
  let base: string;
  let dataDir: string;
  let schema: string | undefined;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dataDir = testTempDir('attest-oauth-5xx-');
    const env: Record<string, string> = {
      ATTEST_DATA_DIR: dataDir,
      ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
      ATTEST_PUBLIC_URL: 'http://attest.test',
      LOG_LEVEL: 'info',
      ATTEST_REDIS_PREFIX: `test-${crypto.randomBytes(4).toString('hex')}`,
    };
    if (process.env.TEST_DATABASE_URL) {
      schema = `t_${crypto.randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`create schema ${schema}`);
      await client.end();
      env.DATABASE_URL = process.env.TEST_DATABASE_URL;
      env.ATTEST_DATABASE_SCHEMA = schema;
    }
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n'))
          if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    app = await buildApp({
      config: loadConfig(env),
      clock: new ManualClock(Date.parse('2026-11-01T12:00:00Z')),
      logger: { level: 'info', stream },
    });
    await app.ready();
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    // The provider's client table disappears: every registration now fails inside the SDK handler.
    await sql`drop table oauth_clients`.execute(app.attest.db);
  });
  afterAll(async () => {
    await app?.close();
    if (schema && process.env.TEST_DATABASE_URL) {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('POST /oauth/register → 500 server_error, no SQL in the body, one log line with the request id', async () => {
    // A real socket: the OAuth bridge hands Node's request stream to Express (inject's stream differs).
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-oauth-5xx-1' },
      body: JSON.stringify({
        redirect_uris: ['https://app.example.com/cb'],
        client_name: 'c',
        token_endpoint_auth_method: 'none',
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('req-oauth-5xx-1');
    expect(JSON.parse(text).error).toBe('server_error');
    expect(text).not.toMatch(/oauth_clients|insert|sqlite|relation|at \w+ \(/i);
    // The error line is written on the response's finish event, before the client has read the body.
    await new Promise((r) => setImmediate(r));
    const errors = lines.filter(
      (l) => Number(l.level) >= 50 && (l.requestId === 'req-oauth-5xx-1' || l.reqId === 'req-oauth-5xx-1'),
    );
    expect(errors.length).toBeGreaterThanOrEqual(1);
    // The request line of a 5xx is at error level too (reqId); the bridge's own line names requestId.
    expect(errors.find((l) => l.requestId === 'req-oauth-5xx-1')).toBeDefined();
  });
});
