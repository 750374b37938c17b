// Concurrent POST /v1/agents/sync requests (which share one commit on SQLite, db/group-commit.ts): each gets
// its own answer and exactly its own rows, a failing writer takes no other writer's data with it, and a
// retried batch is not stored twice. On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set. On SQLite
// also: the checkpoints on a thread of their own.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { commitCount, durableWriter } from '../../../src/db/group-commit.js';
import { raw, rawNames, type Doc } from '../sessions/fixtures.js';

let gw: TestGateway;
let a: Tenant;

const sync = (t: Tenant, body: unknown) =>
  gw.call('POST', '/v1/agents/sync', { token: t.factoryKey, appId: t.appId, body });

/** `count` realistic sessions (the raw fixture transcripts, converted), each with an id of `prefix`. */
function batch(prefix: string, count: number): Doc[] {
  const names = rawNames();
  return Array.from({ length: count }, (_, i) => ({
    ...raw(names[i % names.length]!, 'redacted'),
    id: `${prefix}-${i}`,
  }));
}

async function storedRows(t: Tenant, on: TestGateway = gw) {
  const db = on.app.attest.db;
  const sessions = await db
    .selectFrom('sessions')
    .select(['session_id', 'turn_count'])
    .where('app_id', '=', t.appId)
    .execute();
  const documents = await db
    .selectFrom('session_documents')
    .select(({ fn }) => fn.countAll<number>().as('n'))
    .where('app_id', '=', t.appId)
    .executeTakeFirstOrThrow();
  const usage = await db
    .selectFrom('session_model_usage')
    .select(({ fn }) => fn.countAll<number>().as('n'))
    .where('app_id', '=', t.appId)
    .executeTakeFirstOrThrow();
  return { sessions, documents: Number(documents.n), usage: Number(usage.n) };
}

async function listTotal(t: Tenant): Promise<number> {
  const r = await gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1&limit=1', {
    token: t.loginToken,
    appId: t.appId,
  });
  expect(r.status).toBe(200);
  return r.body.data.total as number;
}

beforeAll(async () => {
  gw = await startGateway();
  a = await createTenant(gw, { plan: 'paid' });
});
afterAll(async () => {
  await gw?.close();
});

describe('concurrent syncs', () => {
  it('four concurrent batches all land: each answered with its own ids, every row stored once', async () => {
    const t = await createTenant(gw, { plan: 'paid' });
    const batches = ['g1', 'g2', 'g3', 'g4'].map((p) => batch(p, 25));
    const results = await Promise.all(batches.map((sessions) => sync(t, { schemaVersion: 1, sessions })));
    results.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.body.data.accepted).toEqual(batches[i]!.map((s) => s.id));
      expect(r.body.data.rejected).toEqual([]);
    });
    const rows = await storedRows(t);
    const expected = batches.flat();
    expect(rows.sessions.map((s) => s.session_id).sort()).toEqual(expected.map((s) => s.id).sort());
    const turnsById = new Map(rows.sessions.map((s) => [s.session_id, s.turn_count]));
    for (const s of expected) expect(turnsById.get(s.id)).toBe((s.turns as unknown[]).length);
    expect(rows.documents).toBe(100);
    expect(rows.usage).toBeGreaterThanOrEqual(100);
    // The counters moved once per top-level session, as if the batches had come one after another.
    const topLevel = expected.filter((s) => s.subagent === undefined).length;
    expect(await listTotal(t)).toBe(expected.length);
    const r = await gw.call('GET', '/v1/sessions?repoScope=all&limit=1', { token: t.loginToken, appId: t.appId });
    expect(r.body.data.total).toBe(topLevel);
    expect(r.body.data.repositories.reduce((n: number, x: { sessions: number }) => n + x.sessions, 0)).toBe(topLevel);
  });

  it('an invalid batch among concurrent valid ones gets its 400; the others get 200 and their rows', async () => {
    const t = await createTenant(gw, { plan: 'paid' });
    const good = ['v1', 'v2', 'v3'].map((p) => batch(p, 10));
    const bodies: unknown[] = [
      { schemaVersion: 1, sessions: good[0] },
      { schemaVersion: 2, sessions: batch('bad', 10) },
      { schemaVersion: 1, sessions: good[1] },
      { schemaVersion: 1, sessions: good[2] },
    ];
    const results = await Promise.all(bodies.map((body) => sync(t, body)));
    expect(results.map((r) => r.status)).toEqual([200, 400, 200, 200]);
    expect(results[1]!.body.error.code).toBeTruthy();
    const rows = await storedRows(t);
    expect(rows.sessions.map((s) => s.session_id).sort()).toEqual(
      good
        .flat()
        .map((s) => s.id)
        .sort(),
    );
    expect(rows.documents).toBe(30);
  });

  it('bad sessions beside concurrent good batches: the bad rejected, the good and the others stored', async () => {
    const t = await createTenant(gw, { plan: 'paid' });
    const mixed = batch('m', 4);
    (mixed[1] as Record<string, unknown>).startedAt = 'not a time';
    const others = ['o1', 'o2'].map((p) => batch(p, 8));
    const [m, ...rest] = await Promise.all(
      [mixed, ...others].map((sessions) => sync(t, { schemaVersion: 1, sessions })),
    );
    expect(m!.status).toBe(200);
    expect(m!.body.data.accepted).toEqual(['m-0', 'm-2', 'm-3']);
    expect(m!.body.data.rejected).toEqual([expect.objectContaining({ index: 1, id: 'm-1' })]);
    for (const r of rest) expect(r.status).toBe(200);
    const rows = await storedRows(t);
    expect(rows.sessions.map((s) => s.session_id).sort()).toEqual(
      ['m-0', 'm-2', 'm-3', ...others.flat().map((s) => s.id)].sort(),
    );
  });

  it('a retried batch, concurrently and again afterwards, is stored and counted once', async () => {
    const sessions = batch('retry', 12);
    const before = await listTotal(a);
    const concurrent = await Promise.all(Array.from({ length: 4 }, () => sync(a, { schemaVersion: 1, sessions })));
    for (const r of concurrent) {
      expect(r.status).toBe(200);
      expect(r.body.data.accepted).toEqual(sessions.map((s) => s.id));
    }
    const again = await sync(a, { schemaVersion: 1, sessions });
    expect(again.status).toBe(200);
    expect(await listTotal(a)).toBe(before + 12);
    const rows = await storedRows(a);
    expect(rows.sessions.filter((s) => s.session_id.startsWith('retry-'))).toHaveLength(12);
  });
});

describe('durable writers sharing a commit', () => {
  it('a writer that fails loses only its own statements; the writers beside it commit theirs', async () => {
    const db = gw.app.attest.db;
    const dialect = gw.app.attest.dialect;
    await sql`create table group_commit_probe (writer integer not null, n integer not null)`.execute(db);
    try {
      const writers = [0, 1, 2, 3].map(() => durableWriter(db, dialect));
      const outcomes = await Promise.allSettled(
        writers.map((w, i) =>
          w.commit(async (trx) => {
            await trx
              .insertInto('group_commit_probe' as never)
              .values({ writer: i, n: 1 } as never)
              .execute();
            await trx
              .insertInto('group_commit_probe' as never)
              .values({ writer: i, n: 2 } as never)
              .execute();
            if (i === 2) throw new Error('writer 2 fails after its inserts');
          }),
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason.message).toBe('writer 2 fails after its inserts');
      const rows = await sql<{
        writer: number;
        n: number;
      }>`select writer, n from group_commit_probe order by writer, n`.execute(db);
      expect(rows.rows.map((r) => [Number(r.writer), Number(r.n)])).toEqual([
        [0, 1],
        [0, 2],
        [1, 1],
        [1, 2],
        [3, 1],
        [3, 2],
      ]);
    } finally {
      await sql`drop table group_commit_probe`.execute(db);
    }
  });

  it('a writer that leaves without committing does not hold the others back', async () => {
    const db = gw.app.attest.db;
    const dialect = gw.app.attest.dialect;
    const gone = durableWriter(db, dialect);
    const staying = durableWriter(db, dialect);
    const committed = staying.commit(async (trx) => {
      await sql`select 1`.execute(trx);
    });
    gone.leave();
    await expect(committed).resolves.toBeUndefined();
  });
});

const onSqlite = !process.env.TEST_DATABASE_URL;

/** POST over a socket of `agent` (kept alive); resolves with the status and the parsed answer. */
function postOver(
  agent: http.Agent,
  base: URL,
  t: Tenant,
  body: Buffer,
): Promise<{ status: number; body: { data: { accepted: string[] } } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path: '/v1/agents/sync',
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.factoryKey}`,
          'x-outerlayer-app-id': t.appId,
          'content-type': 'application/json',
          'content-length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!onSqlite)('SQLite: syncs that arrive together over sockets share a commit', () => {
  it('four syncs in at once commit in one or two transactions, each answered with its own sessions', async () => {
    // Over real sockets: the commit holds the event loop, so the bodies of the next syncs wait in their sockets
    // unless the group lets the loop read them first (db/group-commit.ts, drain).
    const server = await startGateway();
    try {
      const t = await createTenant(server, { plan: 'paid' });
      const base = new URL(await server.app.listen({ host: '127.0.0.1', port: 0 }));
      const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
      try {
        // Four connections open and idle first, so the four bodies below go out in one turn of the loop.
        await Promise.all(
          Array.from(
            { length: 4 },
            () =>
              new Promise<void>((resolve, reject) => {
                http
                  .get({ agent, host: base.hostname, port: base.port, path: '/health' }, (res) =>
                    res.resume().on('end', resolve),
                  )
                  .on('error', reject);
              }),
          ),
        );
        const batches = ['s1', 's2', 's3', 's4'].map((p) => batch(p, 2));
        const before = commitCount(server.app.attest.db);
        const answers = await Promise.all(
          batches.map((sessions) =>
            postOver(agent, base, t, Buffer.from(JSON.stringify({ schemaVersion: 1, sessions }))),
          ),
        );
        const commits = commitCount(server.app.attest.db) - before;
        answers.forEach((answer, i) => {
          expect(answer.status).toBe(200);
          expect(answer.body.data.accepted).toEqual(batches[i]!.map((s) => s.id));
        });
        expect(commits).toBeGreaterThanOrEqual(1);
        expect(commits).toBeLessThanOrEqual(2);
        const rows = await storedRows(t, server);
        expect(rows.sessions.map((s) => s.session_id).sort()).toEqual(
          batches
            .flat()
            .map((s) => s.id)
            .sort(),
        );
        expect(rows.documents).toBe(8);
      } finally {
        agent.destroy();
      }
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!onSqlite)('SQLite: checkpoints on a thread of their own', () => {
  it('past 4 MiB of WAL a thread of its own checkpoints; the file grows without the writer checkpointing', async () => {
    const gateway = await startGateway();
    try {
      const t = await createTenant(gateway, { plan: 'paid' });
      const dbFile = path.join(gateway.config.dataDir, 'attest.db');
      const walFile = `${dbFile}-wal`;
      const autocheckpoint = async () =>
        Number(
          Object.values(
            (await sql<Record<string, number>>`pragma wal_autocheckpoint`.execute(gateway.app.attest.db)).rows[0]!,
          )[0],
        );
      expect(await autocheckpoint()).toBe(1000);
      // Syncs of 25 fixture sessions until the WAL file has passed 4 MiB.
      for (let i = 0; fs.statSync(walFile).size < 4 * 1024 * 1024; i += 1) {
        expect(i).toBeLessThan(40);
        const r = await gateway.call('POST', '/v1/agents/sync', {
          token: t.factoryKey,
          appId: t.appId,
          body: { schemaVersion: 1, sessions: batch(`wal${i}`, 25) },
        });
        expect(r.status).toBe(200);
      }
      // The next commit starts the thread; the writer's own autocheckpoint is raised to a bound of 10,000 pages
      // (40 MB), so from here on the writer does not checkpoint these syncs itself.
      const r = await gateway.call('POST', '/v1/agents/sync', {
        token: t.factoryKey,
        appId: t.appId,
        body: { schemaVersion: 1, sessions: batch('walnext', 1) },
      });
      expect(r.status).toBe(200);
      await expect.poll(autocheckpoint).toBe(10_000);
      const before = fs.statSync(dbFile).size;
      for (let i = 0; i < 3; i += 1) {
        const more = await gateway.call('POST', '/v1/agents/sync', {
          token: t.factoryKey,
          appId: t.appId,
          body: { schemaVersion: 1, sessions: batch(`walmore${i}`, 25) },
        });
        expect(more.status).toBe(200);
      }
      // In WAL mode the database file changes only in a checkpoint, which copies the WAL's pages into it: the
      // new sessions' pages (about 600 KB a sync) make it grow.
      await expect.poll(() => fs.statSync(dbFile).size - before, { timeout: 10_000 }).toBeGreaterThan(256 * 1024);
      const list = await gateway.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1&limit=1', {
        token: t.loginToken,
        appId: t.appId,
      });
      expect(list.status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
