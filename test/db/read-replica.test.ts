// DATABASE_READ_URL (docs/scale.md): the dashboard's aggregates and lists read the replica, every other read
// and every write the primary, and a credential that wrote in the last ATTEST_READ_PRIMARY_SECONDS (30 by
// default) reads the primary everywhere. The replica here is a stand-in that lags until told: another database
// of the same server, into which the test copies the primary's rows when it wants the replica to catch up.
import crypto from 'node:crypto';
import pg from 'pg';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { loadConfig } from '../../src/server/config.js';
import { createTenant, startGateway, usingPostgres, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { ingest, sessionDoc } from '../areas/metrics/sessions.js';

const REPLICA_DB = 'attest_replica_stand_in';

describe('DATABASE_READ_URL at start-up', () => {
  it('refuses a URL that is not postgres://, naming the variable', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'mysql://db/attest' })).toThrow(
      /^DATABASE_READ_URL must be a postgres:\/\/ URL/,
    );
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://' })).toThrow(/^DATABASE_READ_URL must be/);
    expect(() => loadConfig({ ATTEST_READ_PRIMARY_SECONDS: '-1' })).toThrow(/ATTEST_READ_PRIMARY_SECONDS/);
  });

  it.skipIf(usingPostgres)('is ignored by the SQLite store: every read on the one file', async () => {
    const gw = await startGateway({ env: { DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:1/none' } });
    try {
      expect(gw.app.attest.reads.enabled).toBe(false);
      expect((await gw.call('GET', '/health')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it.skipIf(!usingPostgres)('refuses to start on a replica it cannot reach, or one without the schema', async () => {
    await expect(startGateway({ env: { DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:1/none' } })).rejects.toThrow(
      /^DATABASE_READ_URL \(postgres:\/\/postgres@127\.0\.0\.1:1\/none.*\): cannot read the replica: .*ECONNREFUSED/,
    );
    // The stand-in's database exists but holds no copy of this gateway's (fresh) schema.
    await ensureReplicaDatabase();
    await expect(startGateway({ env: { DATABASE_READ_URL: replicaUrl() } })).rejects.toThrow(
      /^DATABASE_READ_URL \(.*\) holds no Attest schema: it must be a replica of DATABASE_URL/,
    );
  });
});

function replicaUrl(): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${REPLICA_DB}`;
  return url.toString();
}

async function withClient<T>(url: string, schema: string | null, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The stand-in's database, made once per server (test files on other processes may race to make it). */
async function ensureReplicaDatabase(): Promise<void> {
  await withClient(process.env.TEST_DATABASE_URL!, null, async (c) => {
    const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [REPLICA_DB]);
    if (rowCount) return;
    // 42P04: made meanwhile; 23505: the same race caught by pg_database's unique index.
    await c.query(`create database ${REPLICA_DB}`).catch((err: { code?: string }) => {
      if (err.code !== '42P04' && err.code !== '23505') throw err;
    });
  });
}

/** Creates `schema` in the database of `url` and applies every migration to it. */
async function migratedSchema(url: string, schema: string): Promise<void> {
  await withClient(url, null, (c) => c.query(`create schema ${schema}`));
  const handle = await openDatabase({ dataDir: '', databaseUrl: url, databaseSchema: schema });
  try {
    await migrateToLatest(handle.db as unknown as Kysely<unknown>, 'postgres', schema);
  } finally {
    await handle.close();
  }
}

describe.skipIf(!usingPostgres)('PostgreSQL with a lagging replica stand-in', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;

  /** The replica catches up: every table of the primary's schema copied over, whole. */
  async function replicate(): Promise<void> {
    await withClient(process.env.TEST_DATABASE_URL!, schema, (primary) =>
      withClient(replicaUrl(), schema, async (replica) => {
        const tables = (
          await primary.query<{ name: string }>('select tablename as name from pg_tables where schemaname = $1', [
            schema,
          ])
        ).rows.map((r) => `"${r.name}"`);
        // As a physical replica applies changes: no foreign-key triggers, so tables load in any order.
        await replica.query('set session_replication_role = replica');
        await replica.query(`truncate ${tables.join(', ')}`);
        for (const table of tables) {
          const { rows } = await primary.query(`select coalesce(json_agg(t), '[]') as rows from ${table} t`);
          await replica.query(`insert into ${table} select * from json_populate_recordset(null::${table}, $1)`, [
            JSON.stringify(rows[0].rows),
          ]);
        }
      }),
    );
  }

  beforeAll(async () => {
    await ensureReplicaDatabase();
    await migratedSchema(process.env.TEST_DATABASE_URL!, schema);
    await migratedSchema(replicaUrl(), schema);
    gw = await startGateway({ env: { ATTEST_DATABASE_SCHEMA: schema, DATABASE_READ_URL: replicaUrl() } });
    a = await createTenant(gw);
    b = await createTenant(gw);
    // The owners' login tokens minted their keys: past the 30 s, they read as a dashboard that wrote nothing.
    gw.clock.advance(30_000);
    await replicate();
  });
  afterAll(async () => {
    await gw?.close();
    await withClient(replicaUrl(), null, (c) => c.query(`drop schema if exists ${schema} cascade`));
  });

  const list = async (token: string, t: Tenant) =>
    (await gw.call('GET', '/v1/sessions?repoScope=all', { token, appId: t.appId })).body.data.sessions.map(
      (s: { sessionId: string }) => s.sessionId,
    );
  const tileSessions = async (token: string, t: Tenant) =>
    (await gw.call('GET', '/v1/metrics/overview', { token, appId: t.appId })).body.data.tiles.sessions.current;
  const turn = { model: 'claude-sonnet-4-5', in: 100, out: 10 };
  const doc = (id: string) => sessionDoc({ id, startedAt: '2026-10-30T10:00:00Z', repo: 'acme/api', turns: [turn] });

  it("a sync's own reads see it at once; another credential's list and tiles wait for the replica", async () => {
    await ingest(gw, { token: a.factoryKey, appId: a.appId }, [doc('s1')]);

    // The one session's read is on the primary for anyone: read-your-writes as the API promises it.
    const detail = await gw.call('GET', '/v1/sessions/s1', { token: a.loginToken, appId: a.appId });
    expect(detail.status).toBe(200);
    expect(detail.body.data.sessionId).toBe('s1');
    // The writer's list and tiles: the primary, within 30 s of its write.
    expect(await list(a.factoryKey, a)).toEqual(['s1']);
    expect(await tileSessions(a.factoryKey, a)).toBe(1);
    // The dashboard's login token wrote nothing: its list and tiles read the replica, which has not caught up.
    expect(await list(a.loginToken, a)).toEqual([]);
    expect(await tileSessions(a.loginToken, a)).toBe(0);

    await replicate();
    expect(await list(a.loginToken, a)).toEqual(['s1']);
    expect(await tileSessions(a.loginToken, a)).toBe(1);
    // Another factory's caller sees none of them on either store.
    expect(await list(b.loginToken, b)).toEqual([]);
    expect(await tileSessions(b.factoryKey, b)).toBe(0);
  });

  it('a writer reads the primary for 30 s after its last write, the replica after that', async () => {
    await ingest(gw, { token: a.factoryKey, appId: a.appId }, [doc('s2')]);
    gw.clock.advance(29_000);
    expect((await list(a.factoryKey, a)).sort()).toEqual(['s1', 's2']);
    gw.clock.advance(1_000);
    // 30 s on: the replica, which still lacks s2.
    expect(await list(a.factoryKey, a)).toEqual(['s1']);
    expect(await tileSessions(a.factoryKey, a)).toBe(1);
    expect((await gw.call('GET', '/v1/sessions/s2', { token: a.factoryKey, appId: a.appId })).status).toBe(200);
    await replicate();
    expect((await list(a.factoryKey, a)).sort()).toEqual(['s1', 's2']);
  });

  it("takes no write on the replica's connections", async () => {
    const replicaDb = gw.app.attest.reads.storeFor('GET', null, true);
    expect(replicaDb).not.toBe(gw.app.attest.db);
    await expect(sql`create table attempt (x int)`.execute(replicaDb)).rejects.toThrow(/read-only transaction/);
  });
});
