// Reads: `attest sessions [filters]`, `attest session TRACE_ID`, `attest costs [--from --to]`: tables on a
// terminal, --json for scripts.
import type { Command } from 'commander';
import { action, printJson, printTable } from './output.js';
import { CliError, clientFor, resolveProfile } from './profile.js';
import type { AttestClient, SessionList, SessionsQuery } from '../client/index.js';

/** Token sums of the costs command. */
interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Cache writes by TTL, e.g. `5m 1200 / 1h 800` (older servers send only the total: `1h` then unknown). */
function cacheWrites(t: { cacheWrite?: number; cacheWrite5m?: number; cacheWrite1h?: number } | undefined): string {
  if (!t) return '-';
  if (typeof t.cacheWrite1h !== 'number') return typeof t.cacheWrite === 'number' ? `${t.cacheWrite}` : '-';
  return `5m ${t.cacheWrite5m ?? (t.cacheWrite ?? 0) - t.cacheWrite1h} / 1h ${t.cacheWrite1h}`;
}

interface SessionsFlags {
  limit?: string;
  offset?: string;
  repo?: string;
  allRepos?: boolean;
  branch?: string;
  agent?: string;
  model?: string;
  from?: string;
  to?: string;
  q?: string;
  sort?: string;
  dir?: string;
  subagents?: boolean;
  json?: boolean;
}

function intOrThrow(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new CliError(`${flag} "${value}" is not a whole number`);
  return n;
}

function isoOrThrow(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new CliError(`${flag} "${value}" is not a date`);
  return new Date(ms).toISOString();
}

function usd(n: unknown): string {
  return typeof n === 'number' ? `$${n.toFixed(4)}` : '-';
}

/** A cost as people read it: models without a price are named, never shown as $0.0000. */
export function costText(costUsd: unknown, unpricedModels: string[] | undefined): string {
  const unpriced = (unpricedModels ?? []).filter(Boolean);
  if (unpriced.length === 0) return usd(costUsd);
  const label = `unpriced (${unpriced.join(', ')})`;
  return typeof costUsd === 'number' && costUsd > 0 ? `${usd(costUsd)} + ${label}` : label;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

export function registerReads(program: Command): void {
  program
    .command('sessions')
    .description('List agent sessions (GET /v1/sessions)')
    .option('--limit <n>', 'page size 1–100', '25')
    .option('--offset <n>', 'skip this many')
    .option('--repo <repo>', 'only this repository ("" = sessions without one)')
    .option('--all-repos', 'every repository (default: the dominant one)')
    .option('--branch <branch>')
    .option('--agent <type>', 'agent type, e.g. claude-code, codex')
    .option('--model <model>')
    .option('--from <date>')
    .option('--to <date>')
    .option('-q, --q <text>', 'search titles')
    .option('--sort <key>', 'startedAt, cost, errors, turns, steering, toolErrorRate')
    .option('--dir <dir>', 'asc or desc')
    .option('--subagents', 'include subagent sessions')
    .option('--json', 'print the whole answer as JSON')
    .action(
      action(async (flags: SessionsFlags) => {
        const client = clientFor(resolveProfile());
        // sort and dir go as typed: the gateway checks them, and its 400 names the values it takes.
        const query: SessionsQuery = {
          limit: intOrThrow(flags.limit, '--limit'),
          offset: intOrThrow(flags.offset, '--offset'),
          repo: flags.repo,
          repoScope: flags.allRepos ? 'all' : undefined,
          branch: flags.branch,
          agentType: flags.agent,
          model: flags.model,
          from: isoOrThrow(flags.from, '--from'),
          to: isoOrThrow(flags.to, '--to'),
          q: flags.q,
          sort: flags.sort as SessionsQuery['sort'],
          dir: flags.dir as SessionsQuery['dir'],
          includeSubagents: flags.subagents ? '1' : undefined,
        };
        const res = await client.listSessions(query);
        const data: SessionList = res.data;
        // What the page leaves out: sessions of other repositories (a repo pin) and subagent sessions.
        let subagentsLeftOut = 0;
        if (!flags.subagents) {
          const withSubagents = await client.listSessions({ ...query, limit: 1, offset: 0, includeSubagents: '1' });
          subagentsLeftOut = Math.max(0, withSubagents.data.total - data.total);
        }
        if (flags.json) {
          printJson({ ...data, subagentsLeftOut });
          return;
        }
        printTable(
          data.sessions.map((s) => ({
            ...s,
            models: (s.models ?? []).join(','),
            cost: costText(s.costUsd, s.unpricedModels),
          })),
          [
            { key: 'traceId', header: 'TRACE ID' },
            { key: 'startedAt', header: 'STARTED' },
            { key: 'agentType', header: 'AGENT' },
            { key: 'models', header: 'MODELS' },
            { key: 'turnCount', header: 'TURNS' },
            { key: 'errorCount', header: 'ERRORS' },
            { key: 'cost', header: 'COST' },
            { key: 'title', header: 'TITLE' },
          ],
        );
        for (const line of leftOutLines(data, subagentsLeftOut, Number(flags.offset ?? 0)))
          process.stdout.write(`${line}\n`);
      }),
    );

  program
    .command('session <traceId>')
    .description('One session with its turns (GET /v1/sessions/{traceId})')
    .option('--json', 'print the whole answer as JSON')
    .action(
      action(async (traceId: string, flags: { json?: boolean }) => {
        const client = clientFor(resolveProfile());
        const s = await client.getSession(traceId);
        // The route's schema leaves a turn open (AgentSession turns as stored); these are the parts printed.
        const turns = s.turns as {
          index: number;
          role: string;
          model?: string;
          usage?: { in: number; out: number; cacheRead: number; cacheCreate: number };
          toolCalls?: { name: string; status: string }[];
        }[];
        if (flags.json) {
          printJson(s);
          return;
        }
        const w = (t: string) => process.stdout.write(`${t}\n`);
        w(`Session ${s.traceId}  ${s.agentType ?? ''}  ${s.startedAt ?? ''}`);
        if (s.title) w(`Title:  ${s.title}`);
        w(`Repo:   ${s.repo || '-'}  branch ${s.branch || '-'}`);
        w(
          `Turns:  ${s.turnCount ?? turns.length}  tool calls ${s.toolCallCount ?? '-'}  errors ` +
            `${s.errorCount ?? '-'}  cost ${costText(s.costUsd, s.unpricedModels)}`,
        );
        for (const m of s.modelUsage ?? [])
          w(
            `  ${m.model}: ${m.turns} turn(s), ` +
              `${(s.unpricedModels ?? []).includes(m.model) ? `unpriced (${m.model})` : usd(m.costUsd)}, cache ` +
              `writes ${cacheWrites(m.tokens)}`,
          );
        printTable(
          turns.map((t) => ({
            index: t.index,
            role: t.role,
            model: t.model ?? '',
            tokens: t.usage ? `${t.usage.in}/${t.usage.out}/${t.usage.cacheRead}/${t.usage.cacheCreate}` : '',
            tools: (t.toolCalls ?? []).map((c) => (c.status === 'ok' ? c.name : `${c.name}(${c.status})`)).join(' '),
          })),
          [
            { key: 'index', header: '#' },
            { key: 'role', header: 'ROLE' },
            { key: 'model', header: 'MODEL' },
            { key: 'tokens', header: 'IN/OUT/CACHE-R/CACHE-W' },
            { key: 'tools', header: 'TOOLS' },
          ],
        );
      }),
    );

  program
    .command('costs')
    .description('Spend by agent and model over a window (from the session list, every repository)')
    .option('--from <date>', 'window start (default: 30 days ago)')
    .option('--to <date>', 'window end (default: now)')
    .option('--json', 'print as JSON')
    .action(
      action(async (flags: { from?: string; to?: string; json?: boolean }) => {
        const to = isoOrThrow(flags.to, '--to') ?? new Date().toISOString();
        const from = isoOrThrow(flags.from, '--from') ?? new Date(Date.parse(to) - 30 * 86_400_000).toISOString();
        if (Date.parse(from) > Date.parse(to)) throw new CliError('--from is after --to');
        const client = clientFor(resolveProfile());
        const rows = new Map<string, CostRow>();
        const tokens: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
        const unpricedModels = new Set<string>();
        let unpricedSessions = 0;
        let totalMicros = 0;
        let sessions = 0;
        for (let offset = 0; offset <= 10_000; offset += 100) {
          const res = await client.listSessions({
            repoScope: 'all',
            from,
            to,
            limit: 100,
            offset,
            includeSubagents: '1',
          });
          const page = res.data;
          for (const s of page.sessions) {
            sessions += 1;
            // Sums in integer micro-dollars: no float drift over thousands of sessions.
            const micros = typeof s.costUsd === 'number' ? Math.round(s.costUsd * 1e6) : 0;
            totalMicros += micros;
            const unpriced = s.unpricedModels ?? [];
            if (unpriced.length > 0) unpricedSessions += 1;
            for (const m of unpriced) unpricedModels.add(m);
            const key = `${s.agentType ?? '-'}\u0000${(s.models ?? []).join(',') || '-'}`;
            const row = rows.get(key) ?? {
              agentType: s.agentType ?? '-',
              model: (s.models ?? []).join(',') || '-',
              sessions: 0,
              costMicros: 0,
              unpriced: new Set<string>(),
              tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              cacheWrite5m: 0,
              cacheWrite1h: 0,
            };
            row.sessions += 1;
            row.costMicros += micros;
            row.cacheWrite1h += s.tokens?.cacheWrite1h ?? 0;
            row.cacheWrite5m += s.tokens?.cacheWrite5m ?? s.tokens?.cacheWrite ?? 0;
            for (const m of unpriced) row.unpriced.add(m);
            for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) {
              const n = s.tokens?.[k] ?? 0;
              row.tokens[k] += n;
              tokens[k] += n;
            }
            rows.set(key, row);
          }
          if (page.sessions.length < 100 || offset + 100 >= page.total) break;
        }
        const list = [...rows.values()].sort((a, b) => b.costMicros - a.costMicros);
        const defaultWindow = flags.from === undefined && flags.to === undefined;
        const span = await (sessions === 0 ? sessionSpan(client) : Promise.resolve(null));
        const hint = sessions === 0 ? emptyWindowHint(span) : null;
        if (flags.json) {
          printJson({
            from,
            to,
            sessions,
            costUsd: totalMicros / 1e6,
            tokens,
            unpricedSessions,
            unpricedModels: [...unpricedModels].sort(),
            byAgentAndModel: list.map((r) => ({
              agentType: r.agentType,
              model: r.model,
              sessions: r.sessions,
              costUsd: r.costMicros / 1e6,
              tokens: r.tokens,
              cacheWrite5m: r.cacheWrite5m,
              cacheWrite1h: r.cacheWrite1h,
              unpricedModels: [...r.unpriced].sort(),
            })),
            ...(sessions === 0
              ? { newestSessionAt: span?.newest ?? null, oldestSessionAt: span?.oldest ?? null, hint }
              : {}),
          });
          return;
        }
        const w = (t: string) => process.stdout.write(`${t}\n`);
        w(`Window: ${from} → ${to}${defaultWindow ? ' (the last 30 days; --from and --to change it)' : ''}`);
        if (sessions === 0) {
          w('No sessions in this window.');
          w(hint!);
          return;
        }
        w(
          `Spend: ${usd(totalMicros / 1e6)} over ${plural(sessions, 'session')}` +
            `${
              unpricedSessions
                ? `, plus ${plural(unpricedSessions, 'session')} unpriced (${[...unpricedModels].sort().join(', ')}) ` +
                  `not counted`
                : ''
            }`,
        );
        w(
          `Tokens: input ${tokens.input}, output ${tokens.output}, cache read ${tokens.cacheRead}, cache write ` +
            `${tokens.cacheWrite}`,
        );
        printTable(
          list.map((r) => ({
            ...r,
            cost: costText(r.costMicros / 1e6, [...r.unpriced]),
            input: r.tokens.input,
            output: r.tokens.output,
            cacheRead: r.tokens.cacheRead,
            cacheWrite: r.tokens.cacheWrite,
          })),
          [
            { key: 'agentType', header: 'AGENT' },
            { key: 'model', header: 'MODELS' },
            { key: 'sessions', header: 'SESSIONS' },
            { key: 'cost', header: 'COST' },
            { key: 'input', header: 'INPUT' },
            { key: 'output', header: 'OUTPUT' },
            { key: 'cacheRead', header: 'CACHE READ' },
            { key: 'cacheWrite', header: 'CACHE WRITE' },
            { key: 'cacheWrite5m', header: 'CACHE-W 5M' },
            { key: 'cacheWrite1h', header: 'CACHE-W 1H' },
          ],
        );
      }),
    );
}

interface CostRow {
  agentType: string;
  model: string;
  sessions: number;
  costMicros: number;
  unpriced: Set<string>;
  tokens: Tokens;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

/** When the oldest and the newest session of the factory started (every repository, subagents too). */
async function sessionSpan(client: AttestClient): Promise<{ oldest: string; newest: string } | null> {
  const edge = async (dir: 'asc' | 'desc') => {
    const res = await client.listSessions({
      repoScope: 'all',
      includeSubagents: '1',
      sort: 'startedAt',
      dir,
      limit: 1,
    });
    return res.data.sessions[0]?.startedAt;
  };
  const [oldest, newest] = await Promise.all([edge('asc'), edge('desc')]);
  return oldest && newest ? { oldest, newest } : null;
}

function emptyWindowHint(span: { oldest: string; newest: string } | null): string {
  if (!span) return 'This factory has no sessions yet: send them with `attest sync`.';
  return (
    `The newest session started ${span.newest} (the oldest ${span.oldest}): \`attest costs --from ` +
    `${day(span.oldest)}\` shows them all, \`attest costs --from ${day(span.newest)}\` the newest.`
  );
}

/** Lines saying what a session page left out and which flag shows it. */
function leftOutLines(data: SessionList, subagentsLeftOut: number, offset: number): string[] {
  const lines: string[] = [];
  const shown = data.sessions.length;
  const dominant = data.repoSelection === 'dominant' ? ' (the repository with the most spend)' : '';
  const where =
    data.repoSelection === 'all'
      ? ' in every repository'
      : data.repo
        ? ` in ${data.repo}${dominant}`
        : ` without a repository${dominant}`;
  lines.push(`${shown === 0 ? 'No' : `${offset + 1}-${offset + shown} of`} ${plural(data.total, 'session')}${where}.`);
  if (offset + shown < data.total) lines.push(`  more: --offset ${offset + shown} (--limit takes up to 100)`);
  const hidden = data.hiddenSessions ?? 0;
  if (data.repoSelection !== 'all' && hidden > 0) {
    const others = (data.repositories ?? []).filter((r) => r.repo !== data.repo);
    const named = others
      .slice(0, 3)
      .map((r) => `${r.repo || '(none)'} ${r.sessions}`)
      .join(', ');
    lines.push(
      `  left out: ${plural(hidden, 'session')} in ` +
        `${plural(data.hiddenRepositories ?? others.length, 'other repository', 'other repositories')}` +
        `${named ? ` (${named}${others.length > 3 ? ', ...' : ''})` : ''}: --all-repos shows them, --repo OWNER/NAME ` +
        `one of them`,
    );
  }
  if (subagentsLeftOut > 0)
    lines.push(`  left out: ${plural(subagentsLeftOut, 'subagent session')}: --subagents includes them`);
  return lines;
}
