// Every aggregate kept at write time against a recount from scratch (issue 46): sessions synced, re-synced
// grown (the same ids with more turns, as `attest sync` sends them), linked to pull requests by name, by branch
// and by commit, the PRs merged and one of them reverted, all through the sync route and the GitHub webhooks.
// After each step every stored aggregate row (the metrics rollups, the sessions list's counters, the PR spend
// sums and the PRs by verdict) must equal what plain SQL over the base rows (sessions, their usage and tool
// rows, the links, the pull requests) counts here, written from the rules the aggregates document, not from
// their code; and the Overview's tiles must equal figures counted by hand from the documents sent.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/schema.js';
import { deleteSessionsInTransaction } from '../../../src/areas/lifecycle/service.js';
import type { DoubleInstallation } from '../../github-double/server.js';
import { bindInstallation } from '../../github-double/setup.js';
import { addMember, createTenant, usingPostgres, type Tenant } from '../../helpers/gateway.js';
import {
  checkDelivery,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
} from '../webhooks/github.js';
import { ingest, sessionDoc, type SessionDoc, type SessionSpec, type TurnSpec } from './sessions.js';

const API = 'acme/api';
const WEB = 'acme/web';
const DAY = 86_400_000;
const SONNET = 'claude-sonnet-4-5';
const OPUS = 'claude-opus-4-1';
const HAIKU = 'claude-haiku-4-5-20251001';
const GPT = 'gpt-5';
/** A model no price list knows: its turns count as unpriced. */
const UNPRICED = 'house-model-1';
/** The Overview's window: all of October 2026 (whole days, read from the aggregates). */
const WINDOW = 'from=2026-10-01&to=2026-10-31';

type Row = Record<string, unknown>;
/** Kysely rows of any table (the recount reads tables by name in raw SQL). */
type AnyDb = Kysely<Database>;

/** A session as the test sends it: its spec, and the commits its transcript says it made. */
interface Sent extends SessionSpec {
  id: string;
  commits?: string[];
  /** The top-level session (same id) this subagent transcript belongs to. */
  subagentOf?: string;
  /** Synced first by another member (their login token): a session's actor is whoever synced it first. */
  byLogin?: boolean;
}

const turn = (model: string, tools: TurnSpec['tools'] = []): TurnSpec => ({ model, in: 1200, out: 400, tools });

function docOf(s: Sent): SessionDoc {
  const doc = sessionDoc(s);
  if (s.commits) doc.outcome = { ...((doc.outcome as object | undefined) ?? {}), commitShas: s.commits };
  if (s.subagentOf) doc.subagent = { agentId: 'agent-1', parentSessionId: s.subagentOf };
  return doc;
}

// ---- the recount: plain SQL over the base rows ---------------------------------------------------------------

/** Rows as comparable lines, numbers as numbers (PostgreSQL's bigint sums arrive as strings otherwise). */
function lines(rows: readonly Row[], columns: readonly string[]): string[] {
  return rows
    .map((r) => JSON.stringify(columns.map((c) => (typeof r[c] === 'string' || r[c] === null ? r[c] : Number(r[c])))))
    .sort();
}

interface AggregateTable {
  table: string;
  keys: readonly string[];
  counters: readonly string[];
  /** The recount's SELECT (its columns named as the table's), bound to the factory. */
  recount: (appId: string) => ReturnType<typeof sql<Row>>;
}

const day = (col: string) => sql.raw(`${col} / ${DAY}`);

/** Top-level sessions linked to a merged PR: by name, by commit, or on its head branch before it closed. */
const mergedLinks = (appId: string) => sql`
  select l.sid, l.repository, l.number, l.merged_at from (
    select r.session_id as sid, p.repository, p.number, p.merged_at
    from session_pr_refs r join pull_requests p
      on p.app_id = r.app_id and p.repository = r.repository and p.number = r.number
    where r.app_id = ${appId} and p.merged = 1
    union
    select k.session_id, p.repository, p.number, p.merged_at
    from session_commit_prs k join pull_requests p
      on p.app_id = k.app_id and p.repository = k.repository and p.number = k.number
    where k.app_id = ${appId} and p.merged = 1
    union
    select s.id, p.repository, p.number, p.merged_at
    from sessions s join pull_requests p on p.app_id = s.app_id and p.repository = s.repo and p.head_branch = s.branch
    where s.app_id = ${appId} and p.merged = 1 and (p.closed_at is null or s.started_at <= p.closed_at)
  ) l join sessions t on t.app_id = ${appId} and t.id = l.sid and t.is_subagent = 0`;

/** Each linked session's distinct merged days, for every repository ('*') and for each PR's repository. */
const mergedDays = (appId: string) => sql`
  select sid, '*' as scope, merged_at / ${sql.raw(String(DAY))} as day from (${mergedLinks(appId)}) a
  union
  select sid, repository, merged_at / ${sql.raw(String(DAY))} from (${mergedLinks(appId)}) b`;

const top = (appId: string) => sql`app_id = ${appId} and is_subagent = 0`;

const TABLES: AggregateTable[] = [
  {
    table: 'metrics_days',
    keys: ['day', 'repo'],
    counters: [
      'sessions',
      'subagent_sessions',
      'cost_micros',
      'top_cost_micros',
      'turns',
      'tool_calls',
      'tool_errors',
      'rejected',
      'clean',
      'hands_on',
    ],
    recount: (appId) => sql`
      select ${day('started_at')} as day, repo,
        sum(1 - is_subagent) as sessions, sum(is_subagent) as subagent_sessions,
        sum(cost_micros) as cost_micros,
        sum(case when is_subagent = 0 then cost_micros else 0 end) as top_cost_micros,
        sum(case when is_subagent = 0 then turn_count else 0 end) as turns,
        sum(case when is_subagent = 0 then tool_call_count else 0 end) as tool_calls,
        sum(case when is_subagent = 0 then tool_error_count else 0 end) as tool_errors,
        sum(case when is_subagent = 0 then rejected_tool_call_count else 0 end) as rejected,
        sum(case when is_subagent = 0 and tool_error_count + api_error_count + rejected_tool_call_count = 0
          then 1 else 0 end) as clean,
        sum(case when is_subagent = 0 and steering_count > 0 then 1 else 0 end) as hands_on
      from sessions where app_id = ${appId} group by ${day('started_at')}, repo`,
  },
  {
    table: 'metrics_day_actors',
    keys: ['day', 'repo', 'actor_id'],
    counters: ['sessions'],
    recount: (appId) => sql`
      select ${day('started_at')} as day, repo, actor_id, count(*) as sessions
      from sessions where ${top(appId)} group by ${day('started_at')}, repo, actor_id`,
  },
  {
    // Day and repository are the session's own (not the usage row's copies), subagent transcripts included.
    table: 'metrics_day_models',
    keys: ['day', 'repo', 'model'],
    counters: [
      'sessions',
      'turns',
      'unpriced_turns',
      'input_tokens',
      'output_tokens',
      'cache_read_tokens',
      'cache_write_tokens',
      'cache_write_1h_tokens',
      'cost_micros',
    ],
    recount: (appId) => sql`
      select ${day('s.started_at')} as day, s.repo, u.model, count(*) as sessions, sum(u.turn_count) as turns,
        sum(u.unpriced_turn_count) as unpriced_turns, sum(u.input_tokens) as input_tokens,
        sum(u.output_tokens) as output_tokens, sum(u.cache_read_tokens) as cache_read_tokens,
        sum(u.cache_write_tokens) as cache_write_tokens, sum(u.cache_write_1h_tokens) as cache_write_1h_tokens,
        sum(u.cost_micros) as cost_micros
      from session_model_usage u join sessions s on s.app_id = u.app_id and s.id = u.session_id
      where u.app_id = ${appId} group by ${day('s.started_at')}, s.repo, u.model`,
  },
  {
    table: 'metrics_day_keys',
    keys: ['dim', 'day', 'repo', 'null_key', 'key'],
    counters: [
      'sessions',
      'cost_micros',
      'turns',
      'tool_calls',
      'tool_errors',
      'rejected',
      'input_tokens',
      'output_tokens',
    ],
    recount: (appId) =>
      sql`${sql.join(
        ['branch', 'agent_type', 'worker_kind', 'origin', 'repo'].map(
          (dim) => sql`
            select ${dim} as dim, ${day('started_at')} as day, repo,
              case when ${sql.ref(dim)} is null then 1 else 0 end as null_key, coalesce(${sql.ref(dim)}, '') as key,
              count(*) as sessions, sum(cost_micros) as cost_micros, sum(turn_count) as turns,
              sum(tool_call_count) as tool_calls, sum(tool_error_count) as tool_errors,
              sum(rejected_tool_call_count) as rejected, sum(input_tokens) as input_tokens,
              sum(output_tokens) as output_tokens
            from sessions where ${top(appId)}
            group by ${day('started_at')}, repo, case when ${sql.ref(dim)} is null then 1 else 0 end,
              coalesce(${sql.ref(dim)}, '')`,
        ),
        sql` union all `,
      )}`,
  },
  {
    table: 'metrics_day_tools',
    keys: ['day', 'repo', 'tool'],
    counters: ['sessions', 'calls', 'errors', 'rejected'],
    recount: (appId) => sql`
      select ${day('s.started_at')} as day, s.repo, t.tool, count(*) as sessions, sum(t.calls) as calls,
        sum(t.errors) as errors, sum(t.rejected) as rejected
      from session_tool_usage t join sessions s on s.app_id = t.app_id and s.id = t.session_id
      where t.app_id = ${appId} and s.is_subagent = 0 group by ${day('s.started_at')}, s.repo, t.tool`,
  },
  {
    // The sessions list's repository picker and the Overview's all-time count: top-level sessions, every cost.
    table: 'session_repos',
    keys: ['repo'],
    counters: ['sessions', 'cost_micros'],
    recount: (appId) => sql`
      select repo, sum(1 - is_subagent) as sessions, sum(cost_micros) as cost_micros
      from sessions where app_id = ${appId} group by repo`,
  },
  {
    // The sessions list's facets, of top-level sessions: a session's models are those its turns used.
    table: 'session_facets',
    keys: ['repo', 'kind', 'value'],
    counters: ['sessions'],
    recount: (appId) => sql`
      select repo, 'actor' as kind, actor_id as value, count(*) as sessions from sessions
        where ${top(appId)} group by repo, actor_id
      union all select repo, 'agentType', agent_type, count(*) from sessions
        where ${top(appId)} and agent_type <> '' group by repo, agent_type
      union all select repo, 'branch', branch, count(*) from sessions
        where ${top(appId)} and branch <> '' group by repo, branch
      union all select repo, 'workerKind', worker_kind, count(*) from sessions
        where ${top(appId)} and worker_kind <> '' group by repo, worker_kind
      union all select repo, 'origin', origin, count(*) from sessions
        where ${top(appId)} and origin <> '' group by repo, origin
      union all select s.repo, 'model', u.model, count(distinct s.id)
        from sessions s join session_model_usage u on u.app_id = s.app_id and u.session_id = s.id
        where s.app_id = ${appId} and s.is_subagent = 0 group by s.repo, u.model
      union all select repo, 'signal', 'hands-on', count(*) from sessions
        where ${top(appId)} and steering_count > 0 group by repo
      union all select repo, 'signal', 'denied', count(*) from sessions
        where ${top(appId)} and rejected_tool_call_count > 0 group by repo
      union all select repo, 'signal', 'tool-errors', count(*) from sessions
        where ${top(appId)} and tool_error_count > 0 group by repo
      union all select repo, 'signal', 'provider-errors', count(*) from sessions
        where ${top(appId)} and api_error_count > 0 group by repo
      union all select repo, 'signal', 'clean', count(*) from sessions
        where ${top(appId)} and tool_error_count + api_error_count + rejected_tool_call_count = 0 group by repo`,
  },
  {
    // Cost of the top-level sessions linked to any merged PR, by their start day and repository.
    table: 'spend_shipped_days',
    keys: ['day', 'repo'],
    counters: ['cost_micros'],
    recount: (appId) => sql`
      select ${day('started_at')} as day, repo, sum(cost_micros) as cost_micros from sessions
      where ${top(appId)} and id in (select sid from (${mergedLinks(appId)}) l)
      group by ${day('started_at')}, repo`,
  },
  {
    // Linked sessions of each merged PR, by its merged day.
    table: 'spend_prs',
    keys: ['day', 'repository', 'number'],
    counters: ['sessions'],
    recount: (appId) => sql`
      select ${day('merged_at')} as day, repository, number, count(distinct sid) as sessions
      from (${mergedLinks(appId)}) l group by ${day('merged_at')}, repository, number`,
  },
  {
    // A session's cost once on each distinct day one of its PRs merged (all repositories, and per repository).
    table: 'spend_merged_days',
    keys: ['scope', 'day'],
    counters: ['cost_micros'],
    recount: (appId) => sql`
      select d.scope, d.day, sum(s.cost_micros) as cost_micros
      from (${mergedDays(appId)}) d join sessions s on s.app_id = ${appId} and s.id = d.sid
      group by d.scope, d.day`,
  },
  {
    // ... and once less for each two of those days with none of the session's between them.
    table: 'spend_merged_pairs',
    keys: ['scope', 'first_day', 'second_day'],
    counters: ['cost_micros'],
    recount: (appId) => sql`
      with d as (${mergedDays(appId)})
      select a.scope, a.day as first_day, b.day as second_day, sum(s.cost_micros) as cost_micros
      from d a join d b on b.sid = a.sid and b.scope = a.scope and b.day > a.day
        join sessions s on s.app_id = ${appId} and s.id = a.sid
      where not exists (select 1 from d c where c.sid = a.sid and c.scope = a.scope and c.day > a.day
        and c.day < b.day)
      group by a.scope, a.day, b.day`,
  },
];

/** Each stored row of the aggregate tables (rows of zeros left: a group whose sessions all moved away). */
async function stored(db: AnyDb, appId: string, t: AggregateTable): Promise<string[]> {
  const rows = (await sql<Row>`select * from ${sql.table(t.table)} where app_id = ${appId}`.execute(db)).rows.filter(
    (r) => t.counters.some((c) => Number(r[c]) !== 0),
  );
  return lines(rows, [...t.keys, ...t.counters]);
}

async function recounted(db: AnyDb, appId: string, t: AggregateTable): Promise<string[]> {
  const rows = (await t.recount(appId).execute(db)).rows.filter((r) => t.counters.some((c) => Number(r[c]) !== 0));
  return lines(rows, [...t.keys, ...t.counters]);
}

/** spend_sessions: each top-level session linked to a merged PR, with its links [repository, number, day]. */
async function spendSessions(db: AnyDb, appId: string): Promise<{ stored: string[]; recounted: string[] }> {
  const keep = (r: Row, links: [string, number, number | null][]) =>
    JSON.stringify([
      r.session_id,
      Number(r.day),
      r.repo,
      Number(r.cost_micros),
      links.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1])),
    ]);
  const kept = (await sql<Row>`select * from spend_sessions where app_id = ${appId}`.execute(db)).rows.map((r) =>
    keep(r, JSON.parse(String(r.links))),
  );
  const links = (
    await sql<Row>`
      select s.id as session_id, ${day('s.started_at')} as day, s.repo, s.cost_micros, l.repository, l.number,
        l.merged_at
      from (${mergedLinks(appId)}) l join sessions s on s.app_id = ${appId} and s.id = l.sid`.execute(db)
  ).rows;
  const bySession = new Map<string, { row: Row; links: [string, number, number | null][] }>();
  for (const r of links) {
    const e = bySession.get(String(r.session_id)) ?? { row: r, links: [] };
    e.links.push([String(r.repository), Number(r.number), Math.floor(Number(r.merged_at) / DAY)]);
    bySession.set(String(r.session_id), e);
  }
  return { stored: kept.sort(), recounted: [...bySession.values()].map((e) => keep(e.row, e.links)).sort() };
}

const FAILED = sql.join(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure']);

/**
 * pr_outcomes: a row per PR a top-level session links to (by name, by commit, or on its head branch before it
 * closed, merged or not): opened when the code host says (else at its first session), its latest verdict,
 * merged, reverted (a later merged PR of its repository reverts it by number, or by title when it names none),
 * CI failed at its head (check runs decide when there are any, else suites).
 */
async function prOutcomes(db: AnyDb, appId: string): Promise<{ stored: string[]; recounted: string[] }> {
  const columns = [
    'repository',
    'number',
    'opened_at',
    'first_session_at',
    'verdict',
    'merged',
    'reverted',
    'ci_failed',
  ];
  const kept = (await sql<Row>`select * from pr_outcomes where app_id = ${appId}`.execute(db)).rows;
  const failedOf = (kind: 'run' | 'suite') => sql`exists (select 1 from pr_checks c where c.app_id = ${appId}
    and c.repository = p.repository and c.head_sha = p.head_sha
    and ${kind === 'run' ? sql`c.check_id like 'run:%'` : sql`c.check_id not like 'run:%'`}
    and c.status = 'completed' and c.conclusion in (${FAILED}))`;
  const counted = (
    await sql<Row>`
      with linked as (
        select r.repository, r.number, s.started_at from session_pr_refs r
          join sessions s on s.app_id = r.app_id and s.id = r.session_id
          where r.app_id = ${appId} and s.is_subagent = 0
        union all
        select k.repository, k.number, s.started_at from session_commit_prs k
          join sessions s on s.app_id = k.app_id and s.id = k.session_id
          where k.app_id = ${appId} and s.is_subagent = 0
        union all
        select p.repository, p.number, s.started_at from pull_requests p
          join sessions s on s.app_id = p.app_id and s.repo = p.repository and s.branch = p.head_branch
          where p.app_id = ${appId} and s.is_subagent = 0 and (p.closed_at is null or s.started_at <= p.closed_at)
      ),
      firsts as (select repository, number, min(started_at) as first from linked group by repository, number)
      select f.repository, f.number, coalesce(p.opened_at, f.first) as opened_at, f.first as first_session_at,
        (select e.verdict from pr_evaluations e where e.app_id = ${appId} and e.repository = f.repository
          and e.number = f.number order by e.evaluated_at desc, e.id desc limit 1) as verdict,
        coalesce(p.merged, 0) as merged,
        case when p.merged = 1 and exists (select 1 from pr_revert_refs v where v.app_id = ${appId}
          and v.repository = p.repository and v.reverting_number <> p.number
          and v.merged_at >= coalesce(p.merged_at, 0)
          and (v.target_number = p.number or (v.target_number is null and v.target_title = p.title)))
          then 1 else 0 end as reverted,
        case when exists (select 1 from pr_checks c where c.app_id = ${appId} and c.repository = p.repository
            and c.head_sha = p.head_sha and c.check_id like 'run:%')
          then case when ${failedOf('run')} then 1 else 0 end
          else case when ${failedOf('suite')} then 1 else 0 end end as ci_failed
      from firsts f left join pull_requests p
        on p.app_id = ${appId} and p.repository = f.repository and p.number = f.number`.execute(db)
  ).rows;
  return { stored: lines(kept, columns), recounted: lines(counted, columns) };
}

// ---- the scenario -----------------------------------------------------------------------------------------

describe('every aggregate equals a recount from the rows, through syncs, re-syncs, merges and a revert', () => {
  let g: GithubGateway;
  let t: Tenant;
  let writer: DoubleInstallation;
  /** Another member's login token: the second actor. */
  let member = '';
  const as = () => ({ token: t.factoryKey, appId: t.appId });
  const db = () => g.gw.app.attest.db as unknown as AnyDb;

  /** The PRs, opened in the double (its numbers): on feat/a, feat/b (acme/api), feat/w (acme/web), feat/c. */
  const prs = {} as Record<'a' | 'b' | 'w' | 'c' | 'revert', { repository: string; number: number; head: string }>;
  const heads = new Map<string, string>();
  let commitOfC = '';

  async function pull(
    key: keyof typeof prs,
    extra: { mergedAt?: string; title?: string; body?: string; updatedAt?: string } = {},
  ) {
    const p = prs[key];
    const payload = pullRequestDelivery({
      repository: p.repository,
      number: p.number,
      title: extra.title ?? `PR ${key}`,
      body: extra.body ?? null,
      head: p.head,
      headSha: heads.get(`${p.repository}:${p.head}`)!,
      updatedAt: extra.mergedAt ?? extra.updatedAt ?? '2026-10-01T10:00:00Z',
      ...(extra.mergedAt ? { state: 'closed' as const, merged: true } : {}),
      installationId: writer.id,
    });
    const r = await deliver(g, 'pull_request', payload);
    expect(r.status, r.text).toBeLessThan(300);
    // The PR's job (comment, verdict, commits read from the double) runs as it would a minute later.
    g.gw.clock.advance(60_000);
    await g.gw.app.attest.jobs.runDueJobs();
  }

  function open(key: keyof typeof prs, repository: string, head: string, title: string) {
    g.github.pushBranch(repository, head, 2);
    const number = g.github.openPullAs('alice', repository, head, title).number;
    heads.set(`${repository}:${head}`, g.github.repo(repository).branches.get(head)!.at(-1)!);
    prs[key] = { repository, number, head };
    return g.github.repo(repository).branches.get(head)!.slice(-2);
  }

  /** The sessions as last sent, by id (the subagent transcript under its parent's id with `:sub`). */
  const sent = new Map<string, Sent>();
  async function sync(sessions: Sent[]) {
    for (const s of sessions) sent.set(s.subagentOf ? `${s.id}:sub` : s.id, s);
    const login = sessions.filter((s) => s.byLogin);
    const key = sessions.filter((s) => !s.byLogin);
    if (key.length) await ingest(g.gw, as(), key.map(docOf));
    if (login.length) await ingest(g.gw, { token: member, appId: t.appId }, login.map(docOf));
  }

  async function expectAggregatesRecounted(step: string) {
    for (const table of TABLES) {
      const [kept, counted] = [await stored(db(), t.appId, table), await recounted(db(), t.appId, table)];
      expect([step, table.table, kept]).toEqual([step, table.table, counted]);
    }
    const spend = await spendSessions(db(), t.appId);
    expect([step, 'spend_sessions', spend.stored]).toEqual([step, 'spend_sessions', spend.recounted]);
    const outcomes = await prOutcomes(db(), t.appId);
    expect([step, 'pr_outcomes', outcomes.stored]).toEqual([step, 'pr_outcomes', outcomes.recounted]);
    return { spend, outcomes };
  }

  /** Each session's cost as stored on its own row, by the id it was sent with (`:sub` for the subagent's). */
  async function costs(): Promise<Map<string, number>> {
    const rows = await db()
      .selectFrom('sessions')
      .select(['session_id', 'is_subagent', 'cost_micros'])
      .where('app_id', '=', t.appId)
      .execute();
    return new Map(rows.map((r) => [`${r.session_id}${r.is_subagent ? ':sub' : ''}`, Number(r.cost_micros)]));
  }

  const get = async (path: string) => {
    const r = await g.gw.call('GET', path, as());
    expect(r.status, r.text).toBe(200);
    return r.body.data;
  };

  /**
   * The Overview's tiles against the sessions as sent: counts from the documents, costs from the sessions' own
   * rows, and the PR spend from the sessions the test knows are linked to a PR merged in the window.
   */
  async function expectTiles(step: string, shipped: string[], mergedPrs: number) {
    const all = [...sent.entries()];
    const tops = all.filter(([, s]) => !s.subagentOf).map(([, s]) => s);
    const cost = await costs();
    const costOf = (ids: string[]) => ids.reduce((n, id) => n + cost.get(id)!, 0);
    const topCost = costOf(tops.map((s) => s.id));
    const shippedCost = costOf(shipped);
    const usd = (micros: number) => Math.round(micros) / 1_000_000;
    const expected = {
      sessions: tops.length,
      subagentSessions: all.length - tops.length,
      turns: tops.reduce((n, s) => n + (s.humanTurns ?? 1) + s.turns.length, 0),
      toolCalls: tops.reduce((n, s) => n + s.turns.reduce((m, x) => m + (x.tools ?? []).length, 0), 0),
      activeActors: new Set(tops.map((s) => Boolean(s.byLogin))).size,
      totalCostUsd: usd(costOf(all.map(([k]) => k))),
      mergedPrs,
      costPerMergedPrUsd: mergedPrs ? usd(shippedCost / mergedPrs) : null,
      unshippedCostUsd: usd(topCost - shippedCost),
    };
    const overview = await get(`/v1/metrics/overview?${WINDOW}`);
    const answered = Object.fromEntries(Object.keys(expected).map((k) => [k, overview.tiles[k].current]));
    expect([step, answered]).toEqual([step, expected]);
    expect([step, overview.allTime.sessions]).toEqual([step, tops.length]);
    return overview;
  }

  beforeAll(async () => {
    g = await startWithGithub();
    writer = g.github.addInstallation('acme', { ...g.github.appPermissions, checks: 'write' });
    t = await createTenant(g.gw);
    member = (await addMember(g.gw, t, 'write')).loginToken;
    await bindInstallation(g.gw, t.appId, writer.id);
    for (const repository of [API, WEB]) {
      g.github.addRepository(repository, { installation: writer });
      const r = await g.gw.call('POST', '/v1/repositories', {
        ...as(),
        body: { repository, installationId: writer.id },
      });
      expect(r.status, r.text).toBe(201);
    }
    // The PR comment job reads each PR's commits from the double: what links a session by commit.
    const on = await g.gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as(), body: { pr_comment: 'on' } });
    expect(on.status, on.text).toBe(200);
    open('a', API, 'feat/a', 'PR a');
    open('b', API, 'feat/b', 'PR b');
    open('w', WEB, 'feat/w', 'PR w');
    // PR c is opened in the double now (its commits exist), and reaches the gateway only after the sessions.
    commitOfC = open('c', API, 'feat/c', 'PR c')[0]!;
    for (const key of ['a', 'b', 'w'] as const) await pull(key);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('keeps every aggregate equal to its recount, and the Overview equal to the figures counted by hand', async () => {
    const id = (n: number) => `d0000000-0000-4000-8000-00000000000${n}`;
    // 1. Sessions of several agents, models, repositories, days and two actors (the factory key's owner and
    // another member). s1 runs on a's branch, names nothing yet and made a commit of c; s2 names a; s3 names w
    // (acme/web); s4 made c's commit; s6 runs on b's branch before b closes, s7 on it after; s5 has no
    // repository; s8 used a model without a price.
    const s: Record<string, Sent> = {
      s1: {
        id: id(1),
        startedAt: '2026-10-05T08:00:00Z',
        repo: API,
        branch: 'feat/a',
        commits: [],
        turns: [turn(SONNET, [{ status: 'ok' }, { name: 'Bash', status: 'error' }])],
      },
      s2: {
        id: id(2),
        startedAt: '2026-10-06T09:00:00Z',
        repo: API,
        branch: 'main',
        agentType: 'codex',
        workerKind: 'ci',
        byLogin: true,
        prNumber: 0,
        turns: [turn(GPT)],
      },
      s3: {
        id: id(3),
        startedAt: '2026-10-06T10:00:00Z',
        repo: WEB,
        branch: 'topic',
        prLinked: [0],
        turns: [turn(SONNET, [{ status: 'rejected' }])],
      },
      s4: {
        id: id(4),
        startedAt: '2026-10-07T11:00:00Z',
        repo: API,
        branch: 'fix',
        humanTurns: 2,
        apiErrors: 1,
        turns: [turn(OPUS, [{ name: 'Bash', status: 'ok' }]), turn(OPUS)],
      },
      s5: {
        id: id(5),
        startedAt: '2026-10-08T07:00:00Z',
        workerKind: 'seat',
        turns: [turn(HAIKU, [{ name: 'Read', status: 'ok' }])],
      },
      s6: {
        id: id(6),
        startedAt: '2026-10-08T12:00:00Z',
        repo: API,
        branch: 'feat/b',
        byLogin: true,
        turns: [turn(SONNET)],
      },
      s7: {
        id: id(7),
        startedAt: '2026-10-13T12:00:00Z',
        repo: API,
        branch: 'feat/b',
        turns: [turn(SONNET, [{ status: 'ok' }])],
      },
      s8: {
        id: id(8),
        startedAt: '2026-10-09T12:00:00Z',
        repo: API,
        branch: 'main',
        turns: [turn(UNPRICED), turn(SONNET, [{ name: 'Grep', status: 'ok' }])],
      },
    };
    s.s1!.commits = [commitOfC];
    s.s2!.prNumber = prs.a.number;
    s.s3!.prLinked = [prs.w.number];
    s.s4!.commits = [commitOfC];
    const sub: Sent = {
      ...s.s1!,
      commits: [],
      subagentOf: id(1),
      startedAt: '2026-10-05T08:10:00Z',
      turns: [turn(SONNET, [{ name: 'Grep', status: 'ok' }])],
    };
    await sync([...Object.values(s), sub]);
    await expectAggregatesRecounted('synced');
    await expectTiles('synced', [], 0);
    const overview = await get(`/v1/metrics/overview?${WINDOW}`);
    expect(overview.tiles.sessions.current).toBe(8);
    expect(overview.tiles.activeActors.current).toBe(2);

    // 2. Re-syncs of grown transcripts: s1 gains a turn of another model and names b; s2 a failed tool call;
    // s3 a turn; the subagent's transcript a turn..
    s.s1 = { ...s.s1!, prLinked: [prs.b.number], turns: [...s.s1!.turns, turn(OPUS, [{ status: 'ok' }])] };
    s.s2 = { ...s.s2!, turns: [...s.s2!.turns, turn(GPT, [{ status: 'error' }])] };
    s.s3 = { ...s.s3!, turns: [...s.s3!.turns, turn(SONNET)] };
    const grownSub = { ...sub, turns: [...sub.turns, turn(HAIKU)] };
    await sync([s.s1, s.s2, s.s3, grownSub]);
    await expectAggregatesRecounted('re-synced');
    await expectTiles('re-synced', [], 0);

    // 3. PR c reaches the gateway: its job reads its commits from the double, which links s1 and s4 to it.
    await pull('c');
    const linked = await db()
      .selectFrom('session_commit_prs')
      .select('session_id')
      .where('app_id', '=', t.appId)
      .execute();
    expect(linked).toHaveLength(2);
    await expectAggregatesRecounted('linked by commit');
    await expectTiles('linked by commit', [], 0);

    // 4. The merges, on four days: a (s1 on its branch, s2 names it), w (s3), b (s1 names it, s6 on its branch;
    // s7 started after b closed), c (s1, s4 by commit). A check run fails at b's head.
    await pull('a', { mergedAt: '2026-10-10T12:00:00Z' });
    await pull('w', { mergedAt: '2026-10-11T12:00:00Z' });
    await pull('b', { mergedAt: '2026-10-12T12:00:00Z' });
    await pull('c', { mergedAt: '2026-10-14T12:00:00Z' });
    const check = checkDelivery('check_run', {
      repository: API,
      id: 9001,
      headSha: heads.get(`${API}:feat/b`)!,
      status: 'completed',
      conclusion: 'failure',
      installationId: writer.id,
    });
    expect((await deliver(g, 'check_run', check)).status).toBeLessThan(300);
    const merged = await expectAggregatesRecounted('merged');
    // s1 counts on three merged days (a, b, c): two pairs of consecutive days.
    expect(merged.spend.stored).toHaveLength(5);
    const shipped = [s.s1, s.s2, s.s3, s.s4, s.s6].map((x) => x!.id);
    await expectTiles('merged', shipped, 4);

    // 5. After the merges, linked sessions grow: the sums move by their new cost.
    s.s6 = { ...s.s6!, turns: [...s.s6!.turns, turn(OPUS, [{ status: 'ok' }])] };
    s.s4 = { ...s.s4!, turns: [...s.s4!.turns, turn(SONNET)] };
    await sync([s.s6, s.s4]);
    await expectAggregatesRecounted('re-synced after merge');
    await expectTiles('re-synced after merge', shipped, 4);

    // 6. A merges a revert of a: a stays merged and shipped, and counts as reverted.
    const revertTitle = 'Revert "PR a"';
    open('revert', API, 'revert-a', revertTitle);
    await pull('revert', { title: revertTitle, body: `Reverts ${API}#${prs.a.number}` });
    await pull('revert', {
      title: revertTitle,
      body: `Reverts ${API}#${prs.a.number}`,
      mergedAt: '2026-10-15T12:00:00Z',
    });
    const reverted = await expectAggregatesRecounted('reverted');
    expect(reverted.outcomes.stored.filter((r) => JSON.parse(r)[6] === 1)).toHaveLength(1);
    await expectTiles('reverted', shipped, 4);
    // PRs by verdict, whatever each verdict is: a, b, c and w (opened in the window, each with sessions; the
    // revert has none), all merged, a reverted, b's CI failed.
    const byVerdict = (await get(`/v1/metrics/verdicts?${WINDOW}`)).verdicts as Record<string, number>[];
    const sum = (k: string) => byVerdict.reduce((n, v) => n + v[k]!, 0);
    expect({
      prs: sum('prs'),
      merged: sum('merged'),
      reverted: sum('reverted'),
      ciFailures: sum('ciFailures'),
    }).toEqual({ prs: 4, merged: 4, reverted: 1, ciFailures: 1 });

    // 7. Deletions. DELETE /v1/sessions reads the session, then deletes it in a transaction of its own: s7 is
    // read, then re-synced grown (a failed tool call of another model) before that transaction starts, and every
    // counter must move back by what is stored then, not by the row read before.
    const staleS7 = await db()
      .selectFrom('sessions')
      .selectAll()
      .where('app_id', '=', t.appId)
      .where('session_id', '=', s.s7!.id)
      .executeTakeFirstOrThrow();
    s.s7 = { ...s.s7!, turns: [...s.s7!.turns, turn(OPUS, [{ status: 'error' }])] };
    await sync([s.s7]);
    const gatewayDb = g.gw.app.attest.db;
    await gatewayDb
      .transaction()
      .execute((trx) => deleteSessionsInTransaction(trx, t.appId, [staleS7], 'request', Date.now()));
    sent.delete(s.s7.id);
    await expectAggregatesRecounted('deleted after a re-sync');
    // s5 (no repository) through the API.
    const del = await g.gw.call('DELETE', `/v1/sessions/${s.s5!.id}`, as());
    expect(del.status, del.text).toBe(204);
    sent.delete(s.s5!.id);
    await expectAggregatesRecounted('deleted');
    await expectTiles('deleted', shipped, 4);
  });

  // PostgreSQL's row locks: a delete must take the shared rows in a sync's order (PR spend sums, then the daily
  // counters last). Taking the counters first, it would hold the day's rows while waiting for a PR spend row a
  // writer holds, and that writer's own counter upsert would then wait for the delete: a deadlock, one failed.
  it.runIf(usingPostgres)('a delete waits behind a writer holding a PR spend row, and neither fails', async () => {
    const linked = (
      await sql<{ session_id: string; repository: string; number: number }>`
        select s.session_id, p.repository, p.number from session_pr_refs r
        join pull_requests p on p.app_id = r.app_id and p.repository = r.repository and p.number = r.number
        join sessions s on s.app_id = r.app_id and s.id = r.session_id
        where r.app_id = ${t.appId} and p.merged = 1 and s.is_subagent = 0
        order by s.session_id limit 1`.execute(db())
    ).rows[0]!;
    expect(linked).toBeDefined();
    let deleted: Promise<{ status: number; text: string }> | undefined;
    await db()
      .transaction()
      .execute(async (trx) => {
        const me = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
        const held = await sql`select 1 from spend_prs where app_id = ${t.appId}
          and repository = ${linked.repository} and number = ${linked.number} for update`.execute(trx);
        expect(held.rows.length).toBeGreaterThan(0);
        deleted = g.gw.call('DELETE', `/v1/sessions/${linked.session_id}`, as());
        // Until the delete waits for the spend row this transaction holds.
        for (let i = 0; ; i++) {
          const waiting = await sql<{ n: number | string }>`select count(*) as n from pg_stat_activity
            where ${me} = any(pg_blocking_pids(pid))`.execute(trx);
          if (Number(waiting.rows[0]!.n) > 0) break;
          if (i > 500) throw new Error('the delete never waited for the PR spend row');
          await new Promise((r) => setTimeout(r, 10));
        }
        // The writer goes on to the day's counters, as a sync ends: they must not be the delete's yet.
        await sql`update metrics_days set sessions = sessions where app_id = ${t.appId}`.execute(trx);
      });
    const answer = await deleted!;
    expect(answer.status, answer.text).toBe(204);
    sent.delete(linked.session_id);
    await expectAggregatesRecounted('deleted behind a writer');
  });
});
