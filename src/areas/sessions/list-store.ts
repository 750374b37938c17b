// SQL of the session list (GET /v1/sessions and its export): the filter, the order, the page (by offset or
// by keyset), the count, and how a title search is read on each store. Scoped by app_id.
import type { Db, Dialect } from '../../db/connection.js';
import { jsonRows, jsonRowsAggregate, readRows } from '../../db/prepared.js';
import { syncedShasOf, syncedShasOfRelation } from '../context/store.js';
import { pageLinksOf, pageLinksOfRelation, type PageLinks } from '../prs/attribution-store.js';
import {
  LISTED_COLUMNS,
  type ListedRow,
  type SessionFacetsTable,
  type SessionReposTable,
  type SessionsTable,
} from './store.js';

export type SortColumn =
  | 'started_at'
  | 'cost_micros'
  | 'error_count'
  | 'turn_count'
  | 'steering_count'
  | 'tool_error_rate_ppm';
export type Signal = 'hands-on' | 'denied' | 'tool-errors' | 'provider-errors' | 'clean';

export interface ListFilter {
  /** null: every repository. */
  repo: string | null;
  includeSubagents: boolean;
  branch?: string;
  agentType?: string;
  model?: string;
  workerKind?: string;
  actorId?: string;
  origins?: string[];
  q?: string;
  from?: number;
  to?: number;
  signal?: Signal;
  /**
   * About how many sessions the scope (repo, top-level or not) holds, from the list's counters: only to
   * choose how a title search is read (see TitlePlan); the rows never depend on it.
   */
  scopeRows?: number;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * How a title search is answered on SQLite (PostgreSQL's planner chooses between its pg_trgm GIN index and
 * the list's ordered indexes itself, from its statistics):
 * - `candidates`: the needle is rare. The trigram FTS index (migration 0003d) names the few sessions whose
 *   title may hold it; the list reads only those (a CROSS JOIN keeps them the outer loop) and sorts them.
 * - `scan`: the needle is frequent (or under 3 characters, which have no trigram). The list walks its own
 *   index in the order asked and tests the title there, stopping when the page is full; the started_at
 *   indexes carry the title (migration 0019), so the count of a window reads no table row.
 * Both apply the same LIKE to the same titles: the plan changes the cost, never the rows.
 */
type TitlePlan =
  | { kind: 'none' }
  | { kind: 'scan'; pattern: string }
  | { kind: 'candidates'; pattern: string; phrase: string };

/** One plan per list request: the page and its count share the estimate (the filter object is the request's). */
const titlePlans = new WeakMap<ListFilter, Promise<TitlePlan>>();

/**
 * Candidates at or above which the walk is cheaper than reading the candidates: reading one candidate (its
 * FTS entry, its title row, its session row) costs about 16 times the walk's test of one index entry, so
 * the FTS count is capped at a sixteenth of the index entries the walk would read (walkEstimate).
 */
function candidateCap(walkRows: number | undefined): number {
  return Math.min(4096, Math.max(64, Math.ceil((walkRows ?? 0) / 16)));
}

function titlePlan(db: Db, dialect: Dialect, appId: string, filter: ListFilter): Promise<TitlePlan> {
  let plan = titlePlans.get(filter);
  if (!plan) {
    plan = chooseTitlePlan(db, dialect, appId, filter);
    titlePlans.set(filter, plan);
  }
  return plan;
}

/**
 * SQL text and its parameters, written by hand for the list's fixed set of shapes: Kysely building and
 * compiling the page and the count (an operation tree of about thirty nodes each, on every request) cost
 * about as much as SQLite running the page.
 * Values are always bound, never written into the text; column names are constants of this file.
 */
class Statement {
  readonly parameters: unknown[] = [];
  constructor(readonly dialect: Dialect) {}
  /**
   * The placeholder of a new bound value: numbered on both stores (`?N` on SQLite), so a value bound once can be
   * named again anywhere in the text, and the text need not be written in the order of its values.
   */
  bind(value: unknown): string {
    this.parameters.push(value);
    return `${this.dialect === 'postgres' ? '$' : '?'}${this.parameters.length}`;
  }
  run<R>(db: Db, text: string): Promise<R[]> {
    return readRows<R>(db, text, this.parameters);
  }
  /**
   * Rows of listed sessions, selected with `listedColumns`: on SQLite each row came as one JSON object, the
   * one value libsql converts (see SQLITE_LISTED).
   */
  async listed(db: Db, text: string): Promise<ListedRow[]> {
    if (this.dialect !== 'sqlite') return this.run<ListedRow>(db, text);
    const rows = await this.run<{ j: string }>(db, text);
    const out = new Array<ListedRow>(rows.length);
    for (let i = 0; i < rows.length; i += 1) out[i] = JSON.parse(rows[i]!.j) as ListedRow;
    return out;
  }
}

/**
 * The LIKE pattern's placeholder. SQLite: `? || ''`, not `?`. When a LIKE's right side is a bare parameter
 * SQLite looks at its bound value to try its prefix optimization and marks the statement to be prepared
 * anew whenever that parameter is bound again, so a cached statement was re-prepared on every request
 * (the page: 0.49 → 0.39 ms at 100k). The concatenation is the same text and opts out of that.
 */
function likePattern(st: Statement, pattern: string): string {
  const placeholder = st.bind(pattern);
  return st.dialect === 'sqlite' ? `(${placeholder} || '')` : placeholder;
}

/**
 * About how many of the scope's index entries the walk reads: with a window (from/to), the scope's share of
 * sessions started in it, as if they were spread evenly between the scope's first and last start (two
 * probes of the ordered index). Only for the plan choice: a wrong guess costs time, never rows.
 */
async function walkEstimate(db: Db, appId: string, filter: ListFilter): Promise<number | undefined> {
  if ((filter.from === undefined && filter.to === undefined) || filter.includeSubagents) return filter.scopeRows;
  const st = new Statement('sqlite');
  const scope = () =>
    `app_id = ${st.bind(appId)}${filter.repo !== null ? ` and repo = ${st.bind(filter.repo)}` : ''} and is_subagent ` +
    `= 0`;
  const lo = `(select started_at from sessions where ${scope()} order by started_at asc limit 1)`;
  const hi = `(select started_at from sessions where ${scope()} order by started_at desc limit 1)`;
  const row = (await st.run<{ lo: number | null; hi: number | null }>(db, `select ${lo} as lo, ${hi} as hi`))[0];
  const first = row?.lo;
  const last = row?.hi;
  if (first === null || first === undefined || last === null || last === undefined) return 0;
  const start = Math.max(first, filter.from ?? first);
  const end = Math.min(last + 1, filter.to ?? last + 1);
  return Math.ceil(((filter.scopeRows ?? 0) * Math.max(0, end - start)) / (last + 1 - first));
}

async function chooseTitlePlan(db: Db, dialect: Dialect, appId: string, filter: ListFilter): Promise<TitlePlan> {
  if (filter.q === undefined || filter.q === '') return { kind: 'none' };
  const needle = filter.q.toLowerCase();
  const pattern = `%${escapeLike(needle)}%`;
  if (dialect !== 'sqlite' || [...needle].length < 3) return { kind: 'scan', pattern };
  // The needle is one FTS5 phrase (quotes doubled): AND/OR/NEAR/* are plain text. Counting FTS entries
  // alone (every factory's, no title read) up to the cap is cheap: it says which plan reads fewer rows. The
  // count's cost grows with the cap, so the cap follows the walk it is weighed against: a 30-day window of a
  // 36k-session repository is a 12k-entry walk, cap 750 instead of 2,250 (1.5 → 0.6 ms at 100k).
  const phrase = `"${needle.replace(/"/g, '""')}"`;
  const cap = candidateCap(await walkEstimate(db, appId, filter));
  const st = new Statement('sqlite');
  const row = (
    await st.run<{ n: number }>(
      db,
      `select count(*) as n from (select 1 from session_title_fts where session_title_fts match ${st.bind(phrase)} ` +
        `limit ${st.bind(cap)})`,
    )
  )[0];
  return Number(row?.n ?? 0) < cap ? { kind: 'candidates', pattern, phrase } : { kind: 'scan', pattern };
}

/** The conditions a `signal` filter adds (the notions the signal facet counts). */
const SIGNAL_CONDITIONS: Record<Signal, readonly string[]> = {
  'hands-on': ['sessions.steering_count > 0'],
  denied: ['sessions.rejected_tool_call_count > 0'],
  'tool-errors': ['sessions.tool_error_count > 0'],
  'provider-errors': ['sessions.api_error_count > 0'],
  clean: ['sessions.tool_error_count = 0', 'sessions.api_error_count = 0', 'sessions.rejected_tool_call_count = 0'],
};

/**
 * The filter's conditions on `sessions` (app_id first), joined by `and`. `repo`, when given, is the SQL of the
 * repository instead of filter.repo's value (null: every repository).
 */
function where(st: Statement, appId: string, filter: ListFilter, plan: TitlePlan, repo?: string | null): string {
  const parts = [`sessions.app_id = ${st.bind(appId)}`];
  const repoSql = repo !== undefined ? repo : filter.repo !== null ? st.bind(filter.repo) : null;
  if (repoSql !== null) parts.push(`sessions.repo = ${repoSql}`);
  // A constant of the code, written as a literal: the same for every request of the shape.
  if (!filter.includeSubagents) parts.push('sessions.is_subagent = 0');
  if (filter.branch !== undefined) parts.push(`sessions.branch = ${st.bind(filter.branch)}`);
  if (filter.agentType !== undefined) parts.push(`sessions.agent_type = ${st.bind(filter.agentType)}`);
  if (filter.workerKind !== undefined) parts.push(`sessions.worker_kind = ${st.bind(filter.workerKind)}`);
  if (filter.actorId !== undefined) parts.push(`sessions.actor_id = ${st.bind(filter.actorId)}`);
  if (filter.origins?.length) parts.push(`sessions.origin in (${filter.origins.map((o) => st.bind(o)).join(', ')})`);
  if (filter.from !== undefined) parts.push(`sessions.started_at >= ${st.bind(filter.from)}`);
  if (filter.to !== undefined) parts.push(`sessions.started_at < ${st.bind(filter.to)}`);
  if (plan.kind !== 'none') {
    if (st.dialect === 'sqlite') {
      // Case-insensitive substring: the needle is lower-cased and SQLite's LIKE folds ASCII case itself,
      // which is all its lower() folds, so this is `lower(coalesce(title, '')) like` without building a
      // lower-cased copy of every title it tests (a NULL title matches neither). The `candidates` plan
      // tests it too: the FTS index only narrows (its folding covers all of Unicode, LIKE's only ASCII).
      parts.push(`sessions.title like ${likePattern(st, plan.pattern)} escape '\\'`);
    } else {
      // PostgreSQL: its GIN pg_trgm index of 0003d is on this very expression.
      parts.push(`lower(coalesce(sessions.title, '')) like ${likePattern(st, plan.pattern)} escape '\\'`);
    }
  }
  if (filter.model !== undefined) {
    // `models` is a JSON array of strings: match the quoted, escaped name (the same notion the model facet counts).
    parts.push(`sessions.models like ${likePattern(st, `%${escapeLike(JSON.stringify(filter.model))}%`)} escape '\\'`);
  }
  if (filter.signal !== undefined) parts.push(...SIGNAL_CONDITIONS[filter.signal]);
  return parts.join(' and ');
}

/** `from ... where ...` of the factory's sessions matching the filter, to order, page or count. */
async function matching(db: Db, st: Statement, appId: string, filter: ListFilter): Promise<string> {
  const plan = await titlePlan(db, st.dialect, appId, filter);
  if (plan.kind !== 'candidates') return `from sessions where ${where(st, appId, filter, plan)}`;
  // The FTS candidates of this factory whose stored title holds the needle, then their session rows by
  // primary key. CROSS JOIN fixes that order (SQLite would otherwise walk the list's index probing the
  // candidate set, which reads the whole scope).
  const candidates = `(select m.session_id from session_title_fts f cross join session_title_search m on m.seq = f.rowid
    where f.session_title_fts match ${st.bind(plan.phrase)} and m.app_id = ${st.bind(appId)}
      and m.title like ${likePattern(st, plan.pattern)} escape '\\')`;
  return (
    `from ${candidates} as c cross join sessions where sessions.id = c.session_id and ` +
    `${where(st, appId, filter, plan)}`
  );
}

/**
 * What the list reads of a row, not `sessions.*`: the nine columns nobody reads past here (keys, credential,
 * chunk bookkeeping) were a fifth of the values the driver converts for a page (issue 46).
 */
const LISTED = LISTED_COLUMNS.map((c) => `sessions.${c}`).join(', ');
/**
 * SQLite: the listed columns of a row as one JSON object, which JSON.parse turns into the same row. libsql
 * hands every value to JavaScript through N-API one by one (about 0.2 µs each): a page of 25 rows of 40
 * columns cost 200-280 µs against 110-170 µs as 25 JSON texts written by SQLite and parsed by V8. Every listed
 * column holds text, an integer or NULL, which JSON carries exactly (no REAL, whose text JSON could round).
 */
const SQLITE_LISTED = `json_object(${LISTED_COLUMNS.map((c) => `'${c}', sessions.${c}`).join(', ')}) as j`;

/**
 * What the list reads of a row of its page: its stored list entry (list-entry.ts), and the columns the rest of
 * its object is made from at read time (actor, context verification, PR outcomes). The entry is JSON text, as
 * a string (PostgreSQL) or its UTF-8 bytes (SQLite); null for a row stored before entries were (migration 0053).
 */
const PAGE_KEYS = ['id', 'actor_id', 'actor_name', 'commit_sha', 'repo', 'branch', 'pr_refs', 'started_at'] as const;
export type PageRow = Pick<SessionsTable, (typeof PAGE_KEYS)[number]> & { entry: string | Uint8Array | null };
const PAGE = [...PAGE_KEYS.map((c) => `sessions.${c}`), 'sessions.list_entry as entry'].join(', ');
const PAGE_OF_S = [...PAGE_KEYS, 'entry'].map((c) => `s.${c}`).join(', ');

/** Separates the entries of an SQLite page: JSON text never holds a raw control character. */
const ENTRY_SEPARATOR = 0x1e;

type PageKeys = [string, string, string, string | null, string, string, string, number, number];

/**
 * SQLite: a page as one row of two values, its rows' key columns (and sort value) as one JSON array of arrays
 * and their entries as one BLOB joined by ENTRY_SEPARATOR (an empty piece: no entry). libsql hands each row and
 * each value to JavaScript through N-API, about 0.7 µs a row; the entries' bytes go into the answer as they are,
 * never decoded. The aggregates take the rows in the order the page's subquery gives them, which SQLite does
 * not promise (an ORDER BY inside the aggregates sorts the entries again: three times the cost), so the
 * reader checks the order and that each entry is its row's, and reads the page row by row when either fails.
 */
function sqliteAggregatedPage(from: string, sort: SortColumn, dir: 'asc' | 'desc', limit: string, offset: string) {
  const keys = [...PAGE_KEYS, 'sort_value'].map((c) => `p.${c}`).join(', ');
  return (
    `select json_group_array(json_array(${keys})) as k, ` +
    `cast(group_concat(coalesce(p.list_entry, ''), char(${ENTRY_SEPARATOR})) as blob) as e ` +
    `from (select ${PAGE_KEYS.map((c) => `sessions.${c}`).join(', ')}, sessions.list_entry, ` +
    `sessions.${sort} as sort_value ${from} ${orderBy(sort, dir)} limit ${limit} offset ${offset}) as p`
  );
}

/** Whether `bytes` at `at` start with `text` (ASCII; false for any other character, so the caller re-reads). */
function bytesStartWith(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i += 1) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** The rows of an aggregated page, or null when they are out of the list's order or an entry is not its row's. */
function aggregatedPageRows(
  row: { k: unknown; e: Uint8Array | string | null } | undefined,
  dir: 'asc' | 'desc',
): PageRow[] | null {
  const keys = jsonRows(row?.k) as PageKeys[];
  const e = row?.e ?? null;
  const entries = typeof e === 'string' ? Buffer.from(e) : (e ?? new Uint8Array(0));
  const out = new Array<PageRow>(keys.length);
  let at = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const [id, actorId, actorName, commitSha, repo, branch, prRefs, startedAt, sortValue] = keys[i]!;
    if (i > 0) {
      const [previousId, , , , , , , , previousValue] = keys[i - 1]!;
      const before = previousValue < sortValue || (previousValue === sortValue && previousId < id);
      if (before !== (dir === 'asc')) return null;
    }
    let end = entries.indexOf(ENTRY_SEPARATOR, at);
    if (end < 0) end = entries.length;
    // listEntryOf writes traceId first.
    if (!bytesStartWith(entries, at, `{"traceId":${JSON.stringify(id)}`)) return null;
    out[i] = {
      id,
      actor_id: actorId,
      actor_name: actorName,
      commit_sha: commitSha,
      repo,
      branch,
      pr_refs: prRefs,
      started_at: startedAt,
      entry: entries.subarray(at, end),
    };
    at = end + 1;
  }
  return out;
}

/** What a page selects of each row: read back by Statement.listed. */
function listedColumns(dialect: Dialect): string {
  return dialect === 'sqlite' ? SQLITE_LISTED : LISTED;
}

/** The list's order: the sort column, then id, in one direction (both constants of the code). */
function orderBy(sort: SortColumn, dir: 'asc' | 'desc'): string {
  return `order by sessions.${sort} ${dir}, sessions.id ${dir}`;
}

export async function listPage(
  db: Db,
  dialect: Dialect,
  appId: string,
  filter: ListFilter,
  sort: SortColumn,
  dir: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<PageRow[]> {
  const st = new Statement(dialect);
  const from = await matching(db, st, appId, filter);
  const parameters = st.parameters.length;
  if (dialect === 'sqlite') {
    const text = sqliteAggregatedPage(from, sort, dir, st.bind(limit), st.bind(offset));
    const rows = aggregatedPageRows((await st.run<{ k: string; e: Uint8Array | null }>(db, text))[0], dir);
    if (rows) return rows;
    st.parameters.length = parameters;
  }
  return st.run<PageRow>(
    db,
    `select ${PAGE} ${from} ${orderBy(sort, dir)} limit ${st.bind(limit)} offset ${st.bind(offset)}`,
  );
}

/** The listed columns of these sessions of the factory (rows without a stored list entry), in no order. */
export function listedRows(db: Db, dialect: Dialect, appId: string, ids: readonly string[]): Promise<ListedRow[]> {
  const st = new Statement(dialect);
  const factory = st.bind(appId);
  const list = ids.map((id) => st.bind(id)).join(', ');
  return st.listed(
    db,
    `select ${listedColumns(dialect)} from sessions where sessions.app_id = ${factory} and sessions.id in (${list})`,
  );
}

/**
 * PostgreSQL: a page of the list and how many sessions match, up to `probe`, in one statement. The ids of
 * the first `probe` matches (in the list's order) are read once; the count is their number and the page is
 * the slice at `offset`, whose rows are then read by primary key. `matches` below `probe` is the exact
 * total; at `probe` it is only a lower bound (the page is right either way while offset + limit ≤ probe).
 */
export async function pageAndMatches(
  db: Db,
  appId: string,
  filter: ListFilter,
  sort: SortColumn,
  dir: 'asc' | 'desc',
  limit: number,
  offset: number,
  probe: number,
): Promise<{ rows: PageRow[]; matches: number }> {
  const st = new Statement('postgres');
  const from = await matching(db, st, appId, filter);
  const text = `with ids as (select sessions.id, sessions.${sort} as k ${from} ${orderBy(sort, dir)}
      limit ${st.bind(probe)})
    select m.n as probe_matches, ${PAGE_OF_S} from (select count(*) as n from ids) m
    left join lateral (select ${PAGE}, p.k from (select id, k from ids order by k ${dir}, id ${dir}
        limit ${st.bind(limit)} offset ${st.bind(offset)}) p
      join sessions on sessions.id = p.id) s on true
    order by s.k ${dir}, s.id ${dir}`;
  const rows = await st.run<PageRow & { probe_matches: number | string }>(db, text);
  const matches = Number(rows[0]?.probe_matches ?? 0);
  const page: PageRow[] = [];
  // The rows keep their probe_matches column: nothing reads it past here (the list reads named fields only).
  for (const row of rows) if (row.id !== null) page.push(row);
  return { rows: page, matches };
}

/** Where a keyset page starts: after the row with this sort value and id (in the list's order). */
export interface ListCursor {
  value: number;
  id: string;
}

/**
 * A page of the list in the same order as listPage, continuing after `after` (keyset: no offset to skip,
 * so the thousandth page costs what the first does). Exports page through a whole list with it.
 */
export async function listAfter(
  db: Db,
  dialect: Dialect,
  appId: string,
  filter: ListFilter,
  sort: SortColumn,
  dir: 'asc' | 'desc',
  limit: number,
  after: ListCursor | null,
): Promise<ListedRow[]> {
  const st = new Statement(dialect);
  let text = `select ${listedColumns(dialect)} ${await matching(db, st, appId, filter)}`;
  if (after) {
    const op = dir === 'desc' ? '<' : '>';
    text +=
      ` and (sessions.${sort} ${op} ${st.bind(after.value)} or (sessions.${sort} = ${st.bind(after.value)} and ` +
      `sessions.id ${op} ${st.bind(after.id)}))`;
  }
  return st.listed(db, `${text} ${orderBy(sort, dir)} limit ${st.bind(limit)}`);
}

/** How many sessions match, counting at most `cap` (a scan stops there). */
export async function countMatching(
  db: Db,
  dialect: Dialect,
  appId: string,
  filter: ListFilter,
  cap: number,
): Promise<number> {
  const st = new Statement(dialect);
  const from = await matching(db, st, appId, filter);
  const row = (
    await st.run<{ n: number | string }>(
      db,
      `select count(*) as n from (select 1 as one ${from} limit ${st.bind(cap)}) as m`,
    )
  )[0];
  return Number(row?.n ?? 0);
}

export type RepoRow = Pick<SessionReposTable, 'repo' | 'sessions' | 'cost_micros'>;
export type FacetRow = Pick<SessionFacetsTable, 'kind' | 'value' | 'label' | 'sessions'>;

/** Which repository's facets the list header reads: all of them summed, one, or the dominant one. */
export type FacetScope = { kind: 'all' } | { kind: 'one'; repo: string } | { kind: 'dominant' };

export interface ListHeader {
  /** The factory's repositories with sessions or cost, costliest first (the repo counters). */
  repos: RepoRow[];
  /** Facet values with their session counts, in the scope's repository or summed across all of them. */
  facets: FacetRow[];
}

/**
 * The list header's two aggregates as scalar subqueries: the factory's repositories (`repos`) and the facets of the
 * scope's repository (`facets`), the dominant one being the first of `repos`, chosen in SQL by the same order
 * (`dominant`, the SQL of its name, '' when there is none). `factory` is the placeholder of the factory id. Each
 * set is one JSON array of arrays: 66 facet rows of four values cost more to hand over row by row and value by
 * value (see SQLITE_LISTED; on PostgreSQL the driver's work a value) than the database took to find them.
 */
function headerSelects(st: Statement, factory: string, scope: FacetScope) {
  const pg = st.dialect === 'postgres';
  const agg = (row: string, order = '') => jsonRowsAggregate(pg, row, order);
  const reposWithSessions = `from session_repos where app_id = ${factory} and (sessions > 0 or cost_micros > 0)`;
  const repoOrder = 'order by cost_micros desc, sessions desc, repo';
  const dominant = `coalesce((select repo ${reposWithSessions} ${repoOrder} limit 1), '')`;
  const repos = `(select ${agg('repo, sessions, cost_micros', repoOrder)} ${reposWithSessions})`;
  const scopeRepo = scope.kind === 'one' ? st.bind(scope.repo) : scope.kind === 'dominant' ? dominant : null;
  const facets =
    scopeRepo === null
      ? `(select ${agg('kind, value, label, sessions')} from (select kind, value, max(label) as label, ` +
        `sum(sessions) as sessions from session_facets where app_id = ${factory} and sessions > 0 ` +
        'group by kind, value) as f)'
      : `(select ${agg('kind, value, label, sessions')} from session_facets where app_id = ${factory} and ` +
        `repo = ${scopeRepo} and sessions > 0)`;
  return { repos, facets, scopeRepo };
}

/** The ListHeader of headerSelects' two values. */
function headerOf(repos: unknown, facets: unknown): ListHeader {
  return {
    repos: jsonRows(repos).map((v) => ({ repo: v[0] as string, sessions: Number(v[1]), cost_micros: Number(v[2]) })),
    facets: jsonRows(facets).map((v) => ({
      kind: v[0] as string,
      value: v[1] as string,
      label: v[2] as string | null,
      sessions: Number(v[3]),
    })),
  };
}

/** The counters every list request reads (headerSelects), in one statement. */
export async function listHeader(db: Db, dialect: Dialect, appId: string, scope: FacetScope): Promise<ListHeader> {
  const st = new Statement(dialect);
  const { repos, facets } = headerSelects(st, st.bind(appId), scope);
  const row = (await st.run<{ r: unknown; f: unknown }>(db, `select ${repos} as r, ${facets} as f`))[0];
  return headerOf(row?.r, row?.f);
}

/** What the other areas know of a page's rows, read with it (readList). */
export interface PageReads {
  /** Commit links and the PRs the page's sessions ran on the head branch of or link to by commit. */
  links: PageLinks;
  /** The page's commits that are synced context commits (lower case). */
  syncedShas: ReadonlySet<string>;
}

/** What readList reads: the header, the page and what the other areas know of its rows. */
export interface ListRead {
  header: ListHeader;
  rows: PageRow[];
  /** Null when the page had to be read again (then these are read for the rows it gave). */
  reads: PageReads | null;
}

/**
 * A list request's reads in one statement: the header (listHeader), the page in the scope's repository (the
 * dominant one resolved in SQL, as the header's facets are) and, over the page's rows, their commit links, the
 * PRs on their head branches or linked by commit (prs area) and their synced context commits (context area).
 * Three statements otherwise, each a round trip on PostgreSQL, where the statements of a list request were the
 * most of its CPU (the socket writes of their messages); `filter.repo` is not read (the scope says it), nor a
 * title search (`q`: its plan needs the scope's size first). The page comes aggregated as on SQLite's listPage,
 * in the list's order on both stores, checked and read again row by row should it not be.
 */
export async function readList(
  db: Db,
  dialect: Dialect,
  appId: string,
  scope: FacetScope,
  filter: ListFilter,
  sort: SortColumn,
  dir: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<ListRead> {
  const pg = dialect === 'postgres';
  const st = new Statement(dialect);
  const factory = st.bind(appId);
  const { repos, facets, scopeRepo } = headerSelects(st, factory, scope);
  const from = `from sessions where ${where(st, appId, filter, { kind: 'none' }, scopeRepo)}`;
  const page =
    `select ${PAGE_KEYS.map((c) => `sessions.${c}`).join(', ')}, sessions.list_entry, sessions.${sort} as sort_value ` +
    `${from} ${orderBy(sort, dir)} limit ${st.bind(limit)} offset ${st.bind(offset)}`;
  const keys = [...PAGE_KEYS, 'sort_value'].map((c) => `p.${c}`).join(', ');
  const order = `order by p.sort_value ${dir}, p.id ${dir}`;
  const entries = pg
    ? `(select string_agg(coalesce(p.list_entry, ''), chr(${ENTRY_SEPARATOR}) ${order}) from page p)`
    : `(select cast(group_concat(coalesce(p.list_entry, ''), char(${ENTRY_SEPARATOR})) as blob) from page p)`;
  const links = pageLinksOfRelation(pg, factory, 'page');
  const text =
    `with page as materialized (${page}) select ${repos} as r, ${facets} as f, ` +
    `(select ${jsonRowsAggregate(pg, keys, pg ? order : '')} from page p) as k, ${entries} as e, ` +
    `${links.links} as l, ${links.prs} as p, ${syncedShasOfRelation(pg, factory, 'page')} as c`;
  type Row = { r: unknown; f: unknown; k: unknown; e: Uint8Array | string | null; l: unknown; p: unknown; c: unknown };
  const row = (await st.run<Row>(db, text))[0];
  const header = headerOf(row?.r, row?.f);
  const rows = aggregatedPageRows(row, dir);
  if (rows) return { header, rows, reads: { links: pageLinksOf(row?.l, row?.p), syncedShas: syncedShasOf(row?.c) } };
  const repo = scope.kind === 'all' ? null : scope.kind === 'one' ? scope.repo : (header.repos[0]?.repo ?? '');
  return {
    header,
    rows: await listPage(db, dialect, appId, { ...filter, repo }, sort, dir, limit, offset),
    reads: null,
  };
}

/**
 * The factory's list version (migration 0054; list-answers.ts): 0 before its first write to a table the list
 * reads. PostgreSQL spreads it over several rows: their sum.
 */
export async function listVersion(db: Db, dialect: Dialect, appId: string): Promise<number> {
  const st = new Statement(dialect);
  const rows = await st.run<{ version: number | string | null }>(
    db,
    `select sum(version) as version from list_versions where app_id = ${st.bind(appId)}`,
  );
  return Number(rows[0]?.version ?? 0);
}
