// Reads: `attest sessions [filters]`, `attest session TRACE_ID`, `attest costs [--from --to]`: tables on a
// terminal, --json for scripts.
import type { Command } from 'commander';
import { action, printJson, printTable } from './output.js';
import { CliError, clientFor, resolveProfile } from './profile.js';

interface SessionRow {
  traceId: string;
  startedAt?: string;
  agentType?: string;
  models?: string[];
  turnCount?: number;
  toolCallCount?: number;
  errorCount?: number;
  costUsd?: number;
  title?: string;
  repo?: string;
  branch?: string;
  tokens?: { cacheWrite?: number; cacheWrite5m?: number; cacheWrite1h?: number };
  [k: string]: unknown;
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

function isoOrThrow(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new CliError(`${flag} "${value}" is not a date`);
  return new Date(ms).toISOString();
}

function usd(n: unknown): string {
  return typeof n === 'number' ? `$${n.toFixed(4)}` : '-';
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
        const res = await client.listSessions({
          limit: flags.limit,
          offset: flags.offset,
          repo: flags.repo,
          repoScope: flags.allRepos ? 'all' : undefined,
          branch: flags.branch,
          agentType: flags.agent,
          model: flags.model,
          from: isoOrThrow(flags.from, '--from'),
          to: isoOrThrow(flags.to, '--to'),
          q: flags.q,
          sort: flags.sort,
          dir: flags.dir,
          includeSubagents: flags.subagents ? '1' : undefined,
        });
        const data = res.data as { sessions: SessionRow[]; total: number; repo?: string; repoSelection?: string };
        if (flags.json) {
          printJson(data);
          return;
        }
        printTable(
          data.sessions.map((s) => ({ ...s, models: (s.models ?? []).join(','), cost: usd(s.costUsd) })),
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
        process.stdout.write(`${data.sessions.length} of ${data.total} session(s)${data.repoSelection ? ` (repo selection: ${data.repoSelection}${data.repo ? ` ${data.repo}` : ''})` : ''}\n`);
      }),
    );

  program
    .command('session <traceId>')
    .description('One session with its turns (GET /v1/sessions/{traceId})')
    .option('--json', 'print the whole answer as JSON')
    .action(
      action(async (traceId: string, flags: { json?: boolean }) => {
        const client = clientFor(resolveProfile());
        const s = (await client.getSession(traceId)) as SessionRow & {
          turns: { index: number; role: string; model?: string; usage?: { in: number; out: number; cacheRead: number; cacheCreate: number; cacheCreate1h?: number }; toolCalls?: { name: string; status: string }[] }[];
          modelUsage?: { model: string; turns: number; costUsd: number; tokens?: { cacheWrite?: number; cacheWrite5m?: number; cacheWrite1h?: number } }[];
        };
        if (flags.json) {
          printJson(s);
          return;
        }
        const w = (t: string) => process.stdout.write(t + '\n');
        w(`Session ${s.traceId}  ${s.agentType ?? ''}  ${s.startedAt ?? ''}`);
        if (s.title) w(`Title:  ${s.title}`);
        w(`Repo:   ${s.repo || '-'}  branch ${s.branch || '-'}`);
        w(`Turns:  ${s.turnCount ?? s.turns.length}  tool calls ${s.toolCallCount ?? '-'}  errors ${s.errorCount ?? '-'}  cost ${usd(s.costUsd)}`);
        for (const m of s.modelUsage ?? []) w(`  ${m.model}: ${m.turns} turn(s), ${usd(m.costUsd)}, cache writes ${cacheWrites(m.tokens)}`);
        printTable(
          s.turns.map((t) => ({
            index: t.index,
            role: t.role,
            model: t.model ?? '',
            tokens: t.usage
              ? `${t.usage.in}/${t.usage.out}/${t.usage.cacheRead}/${t.usage.cacheCreate}${t.usage.cacheCreate1h ? ` (1h ${t.usage.cacheCreate1h})` : ''}`
              : '',
            tools: (t.toolCalls ?? []).map((c) => (c.status === 'ok' ? c.name : `${c.name}(${c.status})`)).join(' '),
          })),
          [
            { key: 'index', header: '#' },
            { key: 'role', header: 'ROLE' },
            { key: 'model', header: 'MODEL' },
            { key: 'tokens', header: 'IN/OUT/CACHE-R/CACHE-W (1H PART)' },
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
        const rows = new Map<string, { agentType: string; model: string; sessions: number; costUsd: number; cacheWrite5m: number; cacheWrite1h: number }>();
        let total = 0;
        let sessions = 0;
        for (let offset = 0; offset <= 10_000; offset += 100) {
          const res = await client.listSessions({ repoScope: 'all', from, to, limit: 100, offset, includeSubagents: '1' });
          const page = res.data as { sessions: SessionRow[]; total: number };
          for (const s of page.sessions) {
            sessions += 1;
            const cost = typeof s.costUsd === 'number' ? s.costUsd : 0;
            total += cost;
            const key = `${s.agentType ?? '-'}\u0000${(s.models ?? []).join(',') || '-'}`;
            const row = rows.get(key) ?? { agentType: s.agentType ?? '-', model: (s.models ?? []).join(',') || '-', sessions: 0, costUsd: 0, cacheWrite5m: 0, cacheWrite1h: 0 };
            row.sessions += 1;
            row.costUsd += cost;
            row.cacheWrite1h += s.tokens?.cacheWrite1h ?? 0;
            row.cacheWrite5m += s.tokens?.cacheWrite5m ?? s.tokens?.cacheWrite ?? 0;
            rows.set(key, row);
          }
          if (page.sessions.length < 100 || offset + 100 >= page.total) break;
        }
        const list = [...rows.values()].sort((a, b) => b.costUsd - a.costUsd);
        if (flags.json) {
          printJson({ from, to, sessions, costUsd: Math.round(total * 1e6) / 1e6, byAgentAndModel: list.map((r) => ({ ...r, costUsd: Math.round(r.costUsd * 1e6) / 1e6 })) });
          return;
        }
        process.stdout.write(`Spend ${from} → ${to}: ${usd(total)} over ${sessions} session(s)\n`);
        printTable(
          list.map((r) => ({ ...r, cost: usd(r.costUsd) })),
          [
            { key: 'agentType', header: 'AGENT' },
            { key: 'model', header: 'MODELS' },
            { key: 'sessions', header: 'SESSIONS' },
            { key: 'cacheWrite5m', header: 'CACHE-W 5M' },
            { key: 'cacheWrite1h', header: 'CACHE-W 1H' },
            { key: 'cost', header: 'COST' },
          ],
        );
      }),
    );
}
