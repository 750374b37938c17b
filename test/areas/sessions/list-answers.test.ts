// The session list read again after each kind of write it shows. A list answer is kept and served again while its
// factory's list version stands (src/areas/sessions/list-answers.ts, migration 0054): every write below must reach
// the next read of the same list, and another factory's writes must not touch this one's answer.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSourceTables } from '../../../src/db/migrations/0054_session_list_versions.js';
import { createTenant, usingPostgres, type Tenant } from '../../helpers/gateway.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';
import {
  checkDelivery,
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from '../webhooks/github.js';

const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 100 };
const HEAD = 'c'.repeat(40);
const SESSION_COMMIT = 'ab12cd34'.repeat(5);
const LIST = '/v1/sessions?repoScope=all';

interface Listed {
  sessionId: string;
  traceId: string;
  title: string | null;
  actorName: string;
  contextSourceVerification: string;
  prOutcomes: {
    prNumber: number;
    ciGreen: { label: string };
    merged: { label: string };
    reverted: { label: string };
  }[];
}

describe('the session list after each write it shows', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });
  const db = () => g.gw.app.attest.db;

  async function list(tenant: Tenant, url = LIST): Promise<Listed[]> {
    const r = await g.gw.call('GET', url, as(tenant));
    expect(r.status).toBe(200);
    return r.body.data.sessions;
  }
  /** The factory's list version (0 before its first write). */
  async function version(tenant: Tenant): Promise<number> {
    const { rows } = await sql<{
      version: number | string;
    }>`select sum(version) as version from list_versions where app_id = ${tenant.appId}`.execute(db());
    return Number(rows[0]?.version ?? 0);
  }
  /** Runs `write`; checks it raised `tenant`'s list version and left the other factory's as it was. */
  async function raises(tenant: Tenant, write: () => Promise<unknown>): Promise<void> {
    const bystander = tenant === t ? other : t;
    const [before, theirs] = [await version(tenant), await version(bystander)];
    await write();
    expect(await version(tenant)).toBeGreaterThan(before);
    expect(await version(bystander)).toBe(theirs);
  }
  const pull = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: 'acme/api',
    title: `PR ${spec.number}`,
    head: 'feat/kept',
    headSha: HEAD,
    installationId: g.installation.id,
    ...spec,
  });
  const doc = (title: string) =>
    sessionDoc({
      id: 'kept-1',
      startedAt: '2026-10-01T09:00:00Z',
      repo: 'acme/api',
      branch: 'feat/kept',
      commitSha: SESSION_COMMIT,
      title,
      turns: [turn],
    });

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    other = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
  });
  afterAll(async () => {
    await g?.close();
  });

  it('a sync, PR states, CI, a revert, a context sync and a re-sync each reach the next read', async () => {
    expect(await list(t)).toEqual([]);
    await raises(t, () => ingest(g.gw, as(t), [doc('First title')]));
    let [s] = await list(t);
    expect(s).toMatchObject({ sessionId: 'kept-1', title: 'First title', prOutcomes: [] });
    expect(s!.contextSourceVerification).toBe('unverified');

    await raises(t, () =>
      deliver(g, 'pull_request', pullRequestDelivery(pull({ number: 21, updatedAt: '2026-10-01T10:00:00Z' }))),
    );
    [s] = await list(t);
    expect(s!.prOutcomes).toMatchObject([{ prNumber: 21, ciGreen: { label: 'unknown' }, merged: { label: 'open' } }]);

    await raises(t, () =>
      deliver(
        g,
        'check_run',
        checkDelivery('check_run', {
          repository: 'acme/api',
          id: 7,
          headSha: HEAD,
          status: 'completed',
          conclusion: 'success',
          installationId: g.installation.id,
        }),
      ),
    );
    [s] = await list(t);
    expect(s!.prOutcomes[0]!.ciGreen.label).toBe('green');

    const merged = pull({ number: 21, state: 'closed', merged: true, updatedAt: '2026-10-02T10:00:00Z' });
    await raises(t, () => deliver(g, 'pull_request', pullRequestDelivery(merged)));
    [s] = await list(t);
    expect(s!.prOutcomes[0]).toMatchObject({ merged: { label: 'merged' }, reverted: { label: 'kept' } });

    const revert = pull({
      number: 22,
      title: 'Revert "PR 21"',
      body: 'Reverts acme/api#21',
      head: 'revert-21',
      headSha: 'd'.repeat(40),
      state: 'closed',
      merged: true,
      updatedAt: '2026-10-03T10:00:00Z',
    });
    await raises(t, () => deliver(g, 'pull_request', pullRequestDelivery(revert)));
    [s] = await list(t);
    expect(s!.prOutcomes[0]!.reverted.label).toBe('reverted');

    await raises(t, async () => {
      const r = await g.gw.call('POST', '/v1/context/sync', {
        ...as(t),
        body: { commitSha: SESSION_COMMIT, files: [{ path: '.outerlayer/rules.md', content: 'IyBydWxlcwo=' }] },
      });
      expect(r.status).toBe(201);
    });
    [s] = await list(t);
    expect(s!.contextSourceVerification).toBe('verified');

    await raises(t, () => ingest(g.gw, as(t), [doc('Second title')]));
    expect((await list(t)).map((x) => x.title)).toEqual(['Second title']);

    // Another factory's sync: its own list shows it, this factory's answer stays what it was.
    const ours = await list(t);
    await raises(other, () => ingest(g.gw, as(other), [doc('Theirs')]));
    expect((await list(other)).map((x) => x.title)).toEqual(['Theirs']);
    expect(await list(t)).toEqual(ours);
  });

  it('serves a kept answer while the version stands, and reads again once it moves', async () => {
    const before = await list(t);
    const kept = await version(t);
    // A change the version does not see (written by hand, the factory's version rows put back as they were):
    // the kept answer still comes.
    await sql`create temp table saved_versions as select * from list_versions where app_id = ${t.appId}`.execute(db());
    const unseen = sql`replace(list_entry, 'Second title', 'Unseen title')`;
    await sql`update sessions set list_entry = ${unseen} where app_id = ${t.appId}`.execute(db());
    expect(await version(t)).toBeGreaterThan(kept);
    await sql`delete from list_versions where app_id = ${t.appId}`.execute(db());
    await sql`insert into list_versions select * from saved_versions`.execute(db());
    await sql`drop table saved_versions`.execute(db());
    expect(await version(t)).toBe(kept);
    expect(await list(t)).toEqual(before);
    // Another query of the same factory was never kept: it reads the rows.
    expect((await list(t, `${LIST}&limit=10`)).map((x) => x.title)).toEqual(['Unseen title']);
    await sql`update list_versions set version = version + 1 where app_id = ${t.appId}`.execute(db());
    expect((await list(t)).map((x) => x.title)).toEqual(['Unseen title']);
    // Answers are kept per view of actors: a key without sessions.read_team gets pseudonyms, not the owner's answer.
    const minted = await g.gw.call('POST', '/v1/api-keys', {
      token: t.loginToken,
      appId: t.appId,
      body: { name: 'read-only', preset: 'read-only' },
    });
    expect(minted.status).toBe(201);
    const owners = await list(t);
    expect(owners[0]!.actorName).not.toBe('anonymous');
    const readOnly = await g.gw.call('GET', LIST, { token: minted.body.data.plaintext_key, appId: t.appId });
    expect(readOnly.body.data.sessions.map((x: Listed) => x.actorName)).toEqual(['anonymous']);
    expect(await list(t)).toEqual(owners);
  });

  it("every table the list reads raises its factory's version on insert, update and delete", async () => {
    await ingest(g.gw, as(t), [
      sessionDoc({
        id: 'kept-2',
        startedAt: '2026-10-04T09:00:00Z',
        repo: 'acme/api',
        title: 'Named',
        prNumber: 21,
        turns: [turn],
      }),
    ]);
    const [{ id }] = (
      await sql<{ id: string }>`select id from sessions where app_id = ${t.appId} limit 1`.execute(db())
    ).rows as [{ id: string }];
    await sql`insert into session_commit_prs (app_id, session_id, repository, number)
      values (${t.appId}, ${id}, 'acme/api', 21)`.execute(db());
    for (const table of listSourceTables(usingPostgres ? 'postgres' : 'sqlite')) {
      const rows = await sql<{
        n: number;
      }>`select count(*) as n from ${sql.table(table)} where app_id = ${t.appId}`.execute(db());
      expect(Number(rows.rows[0]!.n), table).toBeGreaterThan(0);
      await raises(t, () =>
        sql`update ${sql.table(table)} set app_id = app_id where app_id = ${t.appId}`.execute(db()),
      );
      // Sessions lose rows of other tables with them; their deletion is the API's, below.
      if (table === 'sessions') continue;
      await sql`create temp table kept_rows as select * from ${sql.table(table)} where app_id = ${t.appId}`.execute(
        db(),
      );
      await raises(t, () => sql`delete from ${sql.table(table)} where app_id = ${t.appId}`.execute(db()));
      await raises(t, () => sql`insert into ${sql.table(table)} select * from kept_rows`.execute(db()));
      await sql`drop table kept_rows`.execute(db());
    }
  });

  it("a deleted session leaves the next read, and only its factory's", async () => {
    const [s] = await list(t, `${LIST}&q=Second`);
    const theirs = await list(other);
    await raises(t, async () => {
      expect((await g.gw.call('DELETE', `/v1/sessions/${s!.traceId}`, as(t))).status).toBe(204);
    });
    expect((await list(t)).map((x) => x.sessionId)).not.toContain(s!.sessionId);
    expect(await list(other)).toEqual(theirs);
  });
});
