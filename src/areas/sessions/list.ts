// The session list (GET /v1/sessions) and its export: a query's 4xx answers, its filter and order, the
// page, its total (from the facet counters when they can answer it) and the facets the filters offer.
import type { FactoryContext, Gateway } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { dataJsonBody } from '../../server/json-text.js';
import { normalizeRepo } from '../../codehost/repository-name.js';
import {
  ORIGINS,
  type ExportQuery,
  type ListQuery,
  type SessionListWire,
  type SessionWire,
  type SortKey,
} from './schema.js';
import * as listStore from './list-store.js';
import type * as store from './store.js';
import { listEntryText } from './list-entry.js';
import { actorView, enrich, listedHeadJson, toWire, type ActorView } from './wire.js';
import { ListAnswers } from './list-answers.js';

const SORT_COLUMNS: Record<SortKey, listStore.SortColumn> = {
  startedAt: 'started_at',
  cost: 'cost_micros',
  errors: 'error_count',
  turns: 'turn_count',
  steering: 'steering_count',
  toolErrorRate: 'tool_error_rate_ppm',
};

const MAX_REPOSITORIES_LISTED = 100;
/** Counting stops here: past the deepest page reachable (offset 10000 + limit 100), `total` is a lower bound. */
export const TOTAL_CAP = 10_100;
/**
 * How many ids a title search reads first (see listSessions): more than the matches of a usual search, far
 * fewer than TOTAL_CAP (reading 10k ids to count them would cost more than counting them in SQL).
 */
const PROBE_ROWS = 1024;

function queryError(path: string, message: string) {
  return apiError('invalid_query_params', `Invalid querystring: ${path} ${message}`, { details: [{ path, message }] });
}

/** A list query checked (its 4xx answers) and made into the store's filter and order, its repository unresolved. */
interface ListRequest {
  actors: ActorView;
  /** `repo` is resolved from the header (resolveScope). */
  filter: listStore.ListFilter;
  scope: listStore.FacetScope;
  sort: listStore.SortColumn;
  dir: 'asc' | 'desc';
}

interface ListPlan extends ListRequest {
  facetRows: listStore.FacetRow[];
  repoRows: listStore.RepoRow[];
  repo: string | null;
  repoSelection: SessionListWire['repoSelection'];
}

/** Validate a list query (the list's 4xx answers) and turn it into the store's filter, scope and order. */
function planRequest(ctx: FactoryContext, query: ListQuery): ListRequest {
  if (query.pr !== undefined) {
    throw apiError(
      'pr_filter_unsupported',
      'The session list cannot filter by pull request; use GET /v1/prs/{owner}/{repo}/{number} for the sessions ' +
        'linked to a pull request.',
    );
  }
  const actors = actorView(ctx);
  if (query.actor !== undefined && !actors.team) {
    throw apiError('actor_filter_forbidden', 'Filtering by actor needs the sessions.read_team permission.');
  }
  const origins =
    query.origin !== undefined
      ? query.origin
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
      : undefined;
  for (const o of origins ?? []) {
    if (!(ORIGINS as readonly string[]).includes(o))
      throw queryError('origin', `must be a comma list of ${ORIGINS.join(', ')}`);
  }
  const from = query.from !== undefined ? Date.parse(query.from) : undefined;
  const to = query.to !== undefined ? Date.parse(query.to) : undefined;
  if (from !== undefined && to !== undefined && from > to)
    throw apiError('invalid_date_range', 'from must not be after to.');
  let includeSubagents = false;
  if (query.includeSubagents !== undefined) {
    if (!['1', '0', 'true', 'false'].includes(query.includeSubagents))
      throw queryError('includeSubagents', 'must be 1 or 0');
    includeSubagents = query.includeSubagents === '1' || query.includeSubagents === 'true';
  }

  const explicitRepo = query.repoScope !== 'all' && query.repo !== undefined ? normalizeRepo(query.repo) : undefined;
  const filter: listStore.ListFilter = {
    repo: null,
    includeSubagents,
    ...(query.branch !== undefined ? { branch: query.branch } : {}),
    ...(query.agentType !== undefined ? { agentType: query.agentType } : {}),
    ...(query.model !== undefined ? { model: query.model } : {}),
    ...(query.workerKind !== undefined ? { workerKind: query.workerKind } : {}),
    ...(query.actor !== undefined ? { actorId: query.actor } : {}),
    ...(origins?.length ? { origins } : {}),
    ...(query.q !== undefined ? { q: query.q } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(query.signal !== undefined ? { signal: query.signal } : {}),
  };
  return {
    actors,
    filter,
    scope:
      query.repoScope === 'all'
        ? { kind: 'all' }
        : explicitRepo !== undefined
          ? { kind: 'one', repo: explicitRepo }
          : { kind: 'dominant' },
    sort: SORT_COLUMNS[query.sort ?? 'startedAt'],
    dir: query.dir ?? 'desc',
  };
}

/** The request's repository from its header (the dominant one is the first of the repo counters); sets filter.repo. */
function resolveScope(request: ListRequest, header: listStore.ListHeader): ListPlan {
  const { scope } = request;
  const repo = scope.kind === 'all' ? null : scope.kind === 'one' ? scope.repo : (header.repos[0]?.repo ?? '');
  const repoSelection: SessionListWire['repoSelection'] =
    scope.kind === 'all' ? 'all' : scope.kind === 'dominant' ? 'dominant' : repo === '' ? 'none' : 'one';
  request.filter.repo = repo;
  return { ...request, facetRows: header.facets, repoRows: header.repos, repo, repoSelection };
}

/** planRequest with its header read and its repository resolved (the export's plan). */
async function planList(ctx: FactoryContext, query: ListQuery): Promise<ListPlan> {
  const request = planRequest(ctx, query);
  return resolveScope(request, await listStore.listHeader(ctx.db, ctx.gateway.dialect, ctx.appId, request.scope));
}

/**
 * The list's answer (a SessionListWire) as the parts of its JSON text (strings, or UTF-8 bytes): each session's
 * stored list entry goes in as it was read, after the fields read at request time (wire.ts, listedHeadJson),
 * instead of its columns being read, made into an object and serialized again, about half of what a list
 * request cost (issue 46).
 */
export async function listSessions(ctx: FactoryContext, query: ListQuery): Promise<(string | Uint8Array)[]> {
  const request = planRequest(ctx, query);
  const { actors, filter, sort, dir } = request;
  const limit = query.limit ?? 25;
  const offset = query.offset ?? 0;

  // The total comes from the counters when they can answer it: scope alone, or scope and one facet filter.
  // Anything else is counted, stopping past the deepest page the list can reach (offset ≤ 10000).
  const facetFilters: [store.FacetKind, string[]][] = [];
  if (filter.branch !== undefined) facetFilters.push(['branch', [filter.branch]]);
  if (filter.agentType !== undefined) facetFilters.push(['agentType', [filter.agentType]]);
  if (filter.model !== undefined) facetFilters.push(['model', [filter.model]]);
  if (filter.workerKind !== undefined) facetFilters.push(['workerKind', [filter.workerKind]]);
  if (filter.actorId !== undefined) facetFilters.push(['actor', [filter.actorId]]);
  if (filter.origins?.length) facetFilters.push(['origin', [...new Set(filter.origins)]]);
  if (filter.signal !== undefined) facetFilters.push(['signal', [filter.signal]]);
  const scanned =
    filter.includeSubagents ||
    filter.q !== undefined ||
    filter.from !== undefined ||
    filter.to !== undefined ||
    facetFilters.length > 1;

  const dialect = ctx.gateway.dialect;
  const count = () => listStore.countMatching(ctx.db, dialect, ctx.appId, filter, TOTAL_CAP);
  let plan: ListPlan;
  let rows: listStore.PageRow[];
  let counted: number | null = null;
  let reads: listStore.PageReads | undefined;
  // SQLite counts after the page, and only when the page does not say the total: a page that is not full, and
  // not past the end, ends the list (offset + its rows, at most 10,100, so still exact). A rare title search or a
  // narrow filter then costs one statement, not two.
  const countAfter = async (page: readonly listStore.PageRow[]) =>
    page.length < limit && (page.length > 0 || offset === 0) ? offset + page.length : await count();
  if (filter.q === undefined && !(scanned && dialect === 'postgres')) {
    // The header, the page and what other areas know of its rows, in one statement (listStore.readList).
    const read = await listStore.readList(ctx.db, dialect, ctx.appId, request.scope, filter, sort, dir, limit, offset);
    plan = resolveScope(request, read.header);
    rows = read.rows;
    if (read.reads) reads = read.reads;
    if (scanned) counted = await countAfter(rows);
  } else {
    plan = resolveScope(request, await listStore.listHeader(ctx.db, dialect, ctx.appId, request.scope));
    // How big the scope is, for the store's choice of how to read a title search (never for the rows).
    filter.scopeRows = scopeSessions(plan);
    // PostgreSQL: a title search usually matches a few hundred sessions at most. One statement reads the ids
    // of the first PROBE_ROWS matches in the list's order, counts them and reads the page's rows among them;
    // fewer than PROBE_ROWS are all the matches, so their number is the exact total. The page and the count
    // then cost one BitmapAnd of the window and the trigram index instead of two at once on two connections
    // (half the CPU; on two shared cores that is what the latency follows). More matches: that page is right
    // and the count below runs after it. Not on SQLite, where the page stops at its rows and the count walks
    // index entries only, the same statement is no faster.
    if (dialect === 'postgres' && filter.q && offset + limit <= PROBE_ROWS) {
      const probed = await listStore.pageAndMatches(ctx.db, ctx.appId, filter, sort, dir, limit, offset, PROBE_ROWS);
      rows = probed.rows;
      counted = probed.matches < PROBE_ROWS ? probed.matches : await count();
    } else if (dialect === 'postgres') {
      // The page and the count at once, on two connections.
      const [page, countedAlongside] = await Promise.all([
        listStore.listPage(ctx.db, dialect, ctx.appId, filter, sort, dir, limit, offset),
        scanned ? count() : null,
      ]);
      rows = page;
      counted = countedAlongside;
    } else {
      rows = await listStore.listPage(ctx.db, dialect, ctx.appId, filter, sort, dir, limit, offset);
      if (scanned) counted = await countAfter(rows);
    }
  }
  const { facetRows, repoRows, repo, repoSelection } = plan;
  const reposWithSessions = repoRows.filter((r) => r.sessions > 0);
  const allSessions = reposWithSessions.reduce((n, r) => n + r.sessions, 0);
  const inRepo = scopeSessions(plan);
  let total = counted ?? inRepo;
  if (counted === null && facetFilters.length === 1) {
    const [kind, values] = facetFilters[0]!;
    total = facetRows
      .filter((f) => f.kind === kind && values.includes(f.value))
      .reduce((n, f) => n + Number(f.sessions), 0);
  }

  const byKind = new Map<string, listStore.FacetRow[]>();
  for (const f of facetRows) {
    const list = byKind.get(f.kind);
    if (list) list.push(f);
    else byKind.set(f.kind, [f]);
  }
  const facetValues = (kind: store.FacetKind) => (byKind.get(kind) ?? []).map((f) => f.value).sort();
  const actorRows = byKind.get('actor') ?? [];
  const actorNames: Record<string, string> = {};
  for (const a of actorRows) actorNames[actors.id(a.value)] = actors.name(a.value, a.label ?? a.value);
  for (const r of rows) actorNames[actors.id(r.actor_id)] ??= actors.name(r.actor_id, r.actor_name);
  const originCounts = { agent: 0, interactive: 0, worker: 0 };
  for (const f of byKind.get('origin') ?? []) {
    if (f.value === 'agent' || f.value === 'interactive' || f.value === 'worker') originCounts[f.value] += f.sessions;
  }
  const pinned = repo !== null && reposWithSessions.some((r) => r.repo === repo);
  const [extra, entries] = await Promise.all([enrich(ctx, rows, reads), listEntries(ctx, rows)]);
  const header: Omit<SessionListWire, 'sessions'> = {
    total,
    repo: repo ?? '',
    repoSelection,
    repositories: reposWithSessions
      .slice(0, MAX_REPOSITORIES_LISTED)
      .map((r) => ({ repo: r.repo, sessions: Number(r.sessions) })),
    repositoriesTotal: reposWithSessions.length,
    hiddenRepositories: repo === null ? 0 : reposWithSessions.length - (pinned ? 1 : 0),
    hiddenSessions: repo === null ? 0 : allSessions - inRepo,
    scope: actors.team ? 'team' : 'self',
    actors: [...new Set(actorRows.map((a) => actors.id(a.value)))].sort(),
    actorNames,
    agentTypes: facetValues('agentType'),
    branches: facetValues('branch'),
    models: facetValues('model'),
    workerKinds: facetValues('workerKind'),
    originCounts,
  };
  const parts: (string | Uint8Array)[] = ['{"sessions":['];
  let separator = '';
  for (let i = 0; i < rows.length; i += 1) {
    const entry = entries[i];
    if (entry === undefined) continue;
    // `{head…}` and `{entry…}` are JSON objects with at least one key each: `{head…,entry…}`.
    const head = listedHeadJson(rows[i]!, actors, extra);
    parts.push(`${separator}${head.slice(0, -1)},`, typeof entry === 'string' ? entry.slice(1) : entry.subarray(1));
    separator = ',';
  }
  parts.push(`],${JSON.stringify(header).slice(1)}`);
  return parts;
}

/** Each gateway's kept list answers (none when ATTEST_LIST_ANSWERS_MB is 0). */
const keptAnswers = new WeakMap<Gateway, ListAnswers | null>();

function answersOf(gateway: Gateway): ListAnswers | null {
  let answers = keptAnswers.get(gateway);
  if (answers === undefined) {
    const bytes = gateway.config.listAnswersMb * 1024 * 1024;
    answers = bytes > 0 ? new ListAnswers(bytes) : null;
    keptAnswers.set(gateway, answers);
  }
  return answers;
}

/**
 * GET /v1/sessions's body (`{"data": …}`): listSessions's answer, or the same bytes kept from an earlier
 * request while the factory wrote nothing the list reads (list-answers.ts). The answer depends on the factory's
 * rows, the query and whether the caller sees actors (pseudonyms otherwise): those are its key.
 */
export async function listAnswer(ctx: FactoryContext, query: ListQuery): Promise<Buffer> {
  const answers = answersOf(ctx.gateway);
  if (answers === null) return dataJsonBody(await listSessions(ctx, query));
  const { team } = actorView(ctx);
  const fields = Object.entries(query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const key = `${ctx.appId}\u0000${team ? 'team' : 'self'}\u0000${JSON.stringify(fields)}`;
  // Read before the list's own reads: a write landing between them leaves the answer newer than its version,
  // never older, and the next request sees the raised version.
  const version = await listStore.listVersion(ctx.db, ctx.gateway.dialect, ctx.appId);
  const kept = answers.get(key, version);
  if (kept !== undefined) return kept;
  const body = dataJsonBody(await listSessions(ctx, query));
  answers.set(key, version, body);
  return body;
}

/** How many sessions the scope holds, from the repo counters. */
function scopeSessions(plan: ListPlan): number {
  const withSessions = plan.repoRows.filter((r) => r.sessions > 0);
  return plan.repo === null
    ? withSessions.reduce((n, r) => n + r.sessions, 0)
    : (withSessions.find((r) => r.repo === plan.repo)?.sessions ?? 0);
}

/**
 * The stored list entry of each row, in order; a row stored before its column existed (migration 0053) and not
 * yet given one by the sweep (housekeeping.ts) has its entry made from its columns here (undefined: the row was
 * deleted between the two reads, and is left out).
 */
async function listEntries(
  ctx: FactoryContext,
  rows: readonly listStore.PageRow[],
): Promise<(string | Uint8Array | undefined)[]> {
  const missing = rows.filter((r) => r.entry === null).map((r) => r.id);
  if (!missing.length) return rows.map((r) => r.entry!);
  const made = new Map(
    (await listStore.listedRows(ctx.db, ctx.gateway.dialect, ctx.appId, missing)).map((r) => [r.id, listEntryText(r)]),
  );
  return rows.map((r) => r.entry ?? made.get(r.id));
}

/** Rows an export reads from the store per statement. */
export const EXPORT_BATCH = 500;

/**
 * Every session the list would show for `query` (same filters, order, permissions and actor pseudonyms),
 * without its limit/offset: validates first (throwing the list's 4xx answers), then yields the rows page
 * by page (keyset), so a caller can stream them with one page in memory.
 */
export async function exportSessions(
  ctx: FactoryContext,
  query: Omit<ExportQuery, 'format'>,
): Promise<AsyncIterable<SessionWire>> {
  const { actors, filter, sort, dir } = await planList(ctx, query);
  return (async function* rows() {
    let after: listStore.ListCursor | null = null;
    for (;;) {
      const page = await listStore.listAfter(
        ctx.db,
        ctx.gateway.dialect,
        ctx.appId,
        filter,
        sort,
        dir,
        EXPORT_BATCH,
        after,
      );
      if (page.length === 0) return;
      const extra = await enrich(ctx, page);
      for (const row of page) yield toWire(row, actors, extra);
      if (page.length < EXPORT_BATCH) return;
      const last = page[page.length - 1]!;
      after = { value: Number(last[sort]), id: last.id };
    }
  })();
}
