// `npm run bench -- verdict`: the verdict's costs (issue 39), one row per scenario with its goal:
// - facts of a 1,000-turn session (Claude Code shape, full tier: every shell command parsed) in at most 20 ms;
// - the same facts read back from the capture's events (what the gateway does at the redacted tier);
// - `attest verify` on a branch with a 1,000-turn session in under 1 s wall time (a spawned CLI process:
//   dist/main.js after `npm run build`, else through tsx; `--version` is timed too, the floor of any command).
// - GET /v1/prs/{owner}/{repo}/{number}/verdict of a PR with 20 linked sessions (full tier, facts stored at
//   ingest) in a store of 100k sessions (seeded straight into the tables by bench/seed.ts), p50 at most
//   30 ms: the gateway runs in this process on a temp SQLite store (DATABASE_URL=postgres://... for PostgreSQL),
//   requests go over its socket. The PR read of the same PR is timed too: the verdict starts from it (its
//   linked sessions), so the two rows show what of the verdict's time is its own.
// Scenarios live in VERDICT_SCENARIOS; a scenario's run may be async, and its teardown runs after its samples.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { seededGateway } from './seed.js';
import { parseClaudeCodeTranscript } from '../src/capture/index.js';
import { captureSession } from '../src/capture/facts.js';
import { evaluate, factsOfDocument, parsePolicy } from '../src/verify/index.js';
import { renderClaude, type Step } from '../test/fixtures/verification/render.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface VerdictBenchRow {
  name: string;
  /** Median over the samples, ms. */
  medianMs: number;
  /** 99th percentile of the samples, ms. */
  p99Ms: number;
  /** Slowest sample, ms. */
  maxMs: number;
  samples: number;
  goalMs: number;
  /** What the scenario produced (the verdict line), so a wrong answer shows next to its time. */
  note: string;
}

export interface VerdictScenario {
  name: string;
  goalMs: number;
  samples: number;
  setup(ctx: BenchContext): Promise<void> | void;
  /** One timed sample; returns the note of the row. */
  run(ctx: BenchContext): string | Promise<string>;
  /** The note, when producing it is not part of what is timed. */
  describe?(ctx: BenchContext): string;
}

interface BenchContext {
  transcript: string;
  dir: string;
  repo: string;
  env: Record<string, string>;
  state: Record<string, unknown>;
}

/** A 1,000-turn session: edits, test runs (some piped), typechecks, lint, commits, plain shell. */
export function longSession(turns = 1000, cwd = '/home/dev/shop', branch = 'feat/verdict', salt = ''): string {
  // Every line differs (file names carry the step's number), so no line is read twice.
  const pattern: ((i: number) => Step)[] = [
    (i) => ({ edit: `src/cart${i}.ts` }),
    (i) => ({
      bash: `npm test -- cart${i} 2>&1 | tail -5`,
      out: ' Test Files  1 failed | 2 passed (3)\n      Tests  2 failed | 10 passed (12)',
    }),
    (i) => ({ bash: `rg -n "total${i}" src | head -20`, out: 'src/cart.ts:3: total' }),
    (i) => ({ edit: `src/cart${i}.test.ts` }),
    (i) => ({ bash: `cd packages/api && npx vitest run test/cart${i}.test.ts`, out: 'Tests  4 passed (4)' }),
    (i) => ({ bash: `npx tsc --noEmit -p tsconfig.${i}.json`, out: '' }),
    () => ({ say: 'Looking at the failing case next.' }),
    (i) => ({ bash: `cat > notes${i}.txt <<'EOF'\nnpm test\ngit commit --no-verify\nEOF` }),
    (i) => ({ bash: `npm run lint -- --max-warnings ${i}`, out: '' }),
    (i) => ({ bash: `git status --short && git diff --stat src/cart${i}.ts`, out: ' M src/cart.ts' }),
  ];
  const steps: Step[] = [];
  for (let i = 0; steps.length < turns - 2; i++) steps.push(pattern[i % pattern.length]!(Number(`${salt}${i}`)));
  steps.push({ bash: 'npm test', out: 'Tests  12 passed (12)' });
  steps.push({ bash: 'git commit -am "fix: cart total"', out: '[feat/verdict 1a2b3c4] fix: cart total' });
  return renderClaude({
    id: '7be1c0de-0000-4000-8000-000000001000',
    agent: 'claude',
    startedAt: '2026-11-02T10:00:00Z',
    cwd,
    branch,
    steps,
  });
}

function verdictLine(e: ReturnType<typeof evaluate>): string {
  return (
    `${e.verdict}${e.flagged ? ` (${e.flagged} flagged)` : ''}: ` +
    `${e.rows.map((r) => `${r.validator} ${r.status}`).join(', ')}`
  );
}

function evaluateOne(verification: ReturnType<typeof factsOfDocument>) {
  return evaluate({
    sessions: [{ traceId: 't', sessionId: 's', startedAt: '2026-11-02T10:00:00Z', verification }],
    waiting: false,
    commits: null,
    changedFiles: null,
    ci: null,
    criteria: null,
    findings: [],
    history: { typecheck: false, lint: false },
    emitted: [],
    artifacts: [],
    policy: parsePolicy([]),
  });
}

const BUILT = path.join(ROOT, 'dist/main.js');

/** The CLI as installed (`dist/main.js`, after `npm run build`) or, without a build, through tsx. */
function cli(ctx: BenchContext, args: string[]): { ms: number; stdout: string; status: number | null } {
  const t0 = performance.now();
  const entry = fs.existsSync(BUILT) ? [BUILT] : ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
  const r = spawnSync(process.execPath, [...entry, ...args], { cwd: ROOT, env: ctx.env, encoding: 'utf8' });
  return { ms: performance.now() - t0, stdout: r.stdout, status: r.status };
}

export const VERDICT_SCENARIOS: VerdictScenario[] = [
  {
    name: 'facts of a 1,000-turn session (full tier)',
    goalMs: 20,
    samples: 15,
    setup(ctx) {
      // One transcript per sample, each line unique (the salt), so no sample is served by the memo of lines.
      ctx.state.docs = Array.from({ length: 16 }, (_, k) =>
        parseClaudeCodeTranscript(longSession(1000, '/home/dev/shop', 'feat/verdict', String(k + 1)), { tier: 'full' }),
      );
      ctx.state.next = 0;
      // A gateway computes facts warm: the wasm parser and the classification are compiled before the samples.
      for (const k of [97, 98, 99]) {
        factsOfDocument(
          parseClaudeCodeTranscript(longSession(1000, '/home/dev/other', 'x', String(k)), { tier: 'full' }),
        );
      }
    },
    run(ctx) {
      const docs = ctx.state.docs as Parameters<typeof factsOfDocument>[0][];
      const doc = docs[(ctx.state.next as number)++]!;
      ctx.state.last = { doc, facts: factsOfDocument(doc)! };
      return '';
    },
    // The evaluation is not the facts: it is shown, not timed (the verdict route's goal covers it).
    describe(ctx) {
      const { doc, facts } = ctx.state.last as {
        doc: Parameters<typeof factsOfDocument>[0];
        facts: NonNullable<ReturnType<typeof factsOfDocument>>;
      };
      return (
        `${doc.turns.length} turns, ${facts.runs.length} runs, ${facts.edits.length} edits; ` +
        `${verdictLine(evaluateOne(facts))}`
      );
    },
  },
  {
    name: 'facts from capture events (redacted tier)',
    goalMs: 20,
    samples: 15,
    setup(ctx) {
      ctx.state.redacted = captureSession(ctx.transcript, 'claude-code', 'redacted');
    },
    run(ctx) {
      const doc = ctx.state.redacted as Parameters<typeof factsOfDocument>[0];
      const facts = factsOfDocument(doc)!;
      return `${doc.events.length} events; ${verdictLine(evaluateOne(facts))}`;
    },
  },
  {
    name: `attest --version (process floor${fs.existsSync(BUILT) ? '' : ', tsx'})`,
    goalMs: 1000,
    samples: 3,
    setup() {},
    run(ctx) {
      return cli(ctx, ['--version']).stdout.trim();
    },
  },
  {
    name: `attest verify, 1,000-turn session${fs.existsSync(BUILT) ? '' : ' (tsx)'}`,
    goalMs: 1000,
    samples: 3,
    setup(ctx) {
      const git = (...args: string[]) =>
        execFileSync('git', ['-C', ctx.repo, ...args], { env: { ...process.env, ...ctx.env }, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(ctx.repo, 'README.md'), '# shop\n');
      git('add', '.');
      git('commit', '-qm', 'init');
      git('checkout', '-qb', 'feat/verdict');
      const project = path.join(ctx.env.ATTEST_CLAUDE_DIR!, 'repo');
      fs.mkdirSync(project, { recursive: true });
      fs.writeFileSync(path.join(project, 'session.jsonl'), longSession(1000, ctx.repo, 'feat/verdict'));
    },
    run(ctx) {
      const r = cli(ctx, ['verify', '--repo', ctx.repo, '--json']);
      const e = JSON.parse(r.stdout) as ReturnType<typeof evaluate> & { sessions: number };
      return `exit ${r.status}; ${e.sessions} session; ${verdictLine(e)}`;
    },
  },
  {
    // The PR read the verdict starts from (its linked sessions), on the same store: what of the verdict's
    // time is the PR's and what is its own.
    name: 'GET PR read, PR of 20 sessions, 100k in store',
    goalMs: 30,
    samples: 40,
    setup: (ctx) => verdictGateway(ctx),
    async run(ctx) {
      const g = ctx.state.gateway as VerdictGateway;
      const res = await fetch(g.url.replace(/\/verdict$/, ''), { headers: g.headers });
      const body = (await res.json()) as { data: { sessionList: unknown[] } };
      if (res.status !== 200) throw new Error(`GET PR: ${res.status} ${JSON.stringify(body)}`);
      return `seeded in ${g.seedSeconds.toFixed(1)} s (${g.dialect}); ${body.data.sessionList.length} linked sessions`;
    },
  },
  {
    name: 'GET verdict, PR of 20 sessions, 100k in store',
    goalMs: 30,
    samples: 40,
    setup: (ctx) => verdictGateway(ctx),
    async run(ctx) {
      const g = ctx.state.gateway as VerdictGateway;
      const res = await fetch(g.url, { headers: g.headers });
      const body = (await res.json()) as {
        data: { verdict: string; flagged: number; rows: { validator: string; status: string }[] };
      };
      if (res.status !== 200) throw new Error(`GET verdict: ${res.status} ${JSON.stringify(body)}`);
      const v = body.data;
      return (
        `${v.verdict}${v.flagged ? ` (${v.flagged} flagged)` : ''}: ` +
        `${v.rows.map((r) => `${r.validator} ${r.status}`).join(', ')}`
      );
    },
  },
];

interface VerdictGateway {
  url: string;
  headers: Record<string, string>;
  seedSeconds: number;
  dialect: string;
  close(): Promise<void>;
}

/** A full-tier session of the bench PR: edits, a failing then a passing test run, a typecheck, a commit. */
export function linkedSession(k: number, startedAt: number): Record<string, unknown> {
  const calls: { name: string; status: 'ok' | 'error'; input: Record<string, unknown>; output: string }[] = [
    {
      name: 'Edit',
      status: 'ok',
      input: { file_path: `src/cart${k}.ts`, old_string: 'a', new_string: 'b' },
      output: 'ok',
    },
    {
      name: 'Bash',
      status: 'error',
      input: { command: `npx vitest run test/cart${k}.test.ts` },
      output: 'Tests  1 failed | 3 passed (4)',
    },
    {
      name: 'Edit',
      status: 'ok',
      input: { file_path: `src/cart${k}.ts`, old_string: 'b', new_string: 'c' },
      output: 'ok',
    },
    { name: 'Bash', status: 'ok', input: { command: 'npx vitest run' }, output: 'Tests  12 passed (12)' },
    { name: 'Bash', status: 'ok', input: { command: 'npx tsc --noEmit' }, output: '' },
    {
      name: 'Bash',
      status: 'ok',
      input: { command: `git commit -am "cart ${k}"` },
      output: `[feat/bench ${String(k).padStart(7, '0')}] cart`,
    },
  ];
  const turns: Record<string, unknown>[] = [
    {
      index: 0,
      role: 'user',
      source: 'human',
      text: 'fix the cart',
      toolCalls: [],
      ts: new Date(startedAt).toISOString(),
    },
  ];
  calls.forEach((c, i) => {
    turns.push({
      index: i + 1,
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      text: null,
      ts: new Date(startedAt + (i + 1) * 1000).toISOString(),
      usage: { in: 100, out: 10, cacheRead: 0, cacheCreate: 0 },
      toolCalls: [{ name: c.name, status: c.status, isEdit: c.name === 'Edit', input: c.input, output: c.output }],
    });
  });
  return {
    schemaVersion: 1,
    id: crypto.randomUUID(),
    agent: { type: 'claude-code', version: '2.1.193' },
    actor: { id: `member-${k % 4}` },
    captureTier: 'full',
    env: { gitRepo: 'github.com/acme/api', gitBranch: 'feat/bench' },
    startedAt: new Date(startedAt).toISOString(),
    endedAt: new Date(startedAt + (calls.length + 1) * 1000).toISOString(),
    models: ['claude-sonnet-4-5'],
    turns,
    events: [],
    totals: { inputTokens: 600, outputTokens: 60, cacheReadTokens: 0, cacheCreationTokens: 0 },
    warnings: [],
    outcome: { prNumber: BENCH_PR },
  };
}

/** Not one of the seeded PRs (1..400 per repository). */
const BENCH_PR = 4000;

/** The gateway on a temp store: `sessions` seeded, plus one PR with `linked` sessions synced through the API. */
async function verdictGateway(ctx: BenchContext, sessions = 100_000, linked = 20): Promise<void> {
  if (ctx.state.gateway) return;
  const dataDir = path.join(ctx.dir, 'gateway');
  fs.mkdirSync(dataDir);
  const g = await seededGateway({ name: 'verdict', sessions, dataDir });
  const { app, gw, headers, now, close } = g;
  try {
    const t0 = performance.now();
    await gw.db
      .insertInto('pull_requests')
      .values({
        id: crypto.randomUUID(),
        org_id: gw.bootstrap.orgId,
        app_id: gw.bootstrap.appId,
        repository: 'acme/api',
        number: BENCH_PR,
        url: `https://github.com/acme/api/pull/${BENCH_PR}`,
        title: 'Cart totals',
        author: 'bench',
        head_branch: 'feat/bench',
        head_sha: 'b'.repeat(40),
        base_branch: 'main',
        state: 'open',
        merged: 0,
        opened_at: now - 86_400_000,
        closed_at: null,
        merged_at: null,
        source_updated_at: now - 3_600_000,
        updated_at: now - 3_600_000,
        state_source: 'app',
      })
      .execute();
    const docs = Array.from({ length: linked }, (_, k) => linkedSession(k, now - 7_200_000 + k * 60_000));
    const sync = await app.inject({
      method: 'POST',
      url: '/v1/agents/sync',
      headers,
      payload: { schemaVersion: 1, sessions: docs },
    });
    const synced = sync.json() as { data?: { rejected: unknown[] } };
    if (sync.statusCode !== 200 || (synced.data?.rejected.length ?? 1) > 0)
      throw new Error(`sync of the linked sessions: ${sync.statusCode} ${sync.body}`);
    const seedSeconds = g.seedSeconds + (performance.now() - t0) / 1000;
    ctx.state.gateway = {
      url: `${g.url}/v1/prs/acme/api/${BENCH_PR}/verdict`,
      headers,
      seedSeconds,
      dialect: gw.dialect,
      close,
    } satisfies VerdictGateway;
  } catch (err) {
    await close();
    throw err;
  }
}

export async function runVerdictBench(opts: { only?: string[] } = {}): Promise<VerdictBenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-verdict-bench-'));
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(repo);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    ATTEST_CLAUDE_DIR: path.join(dir, 'claude'),
    ATTEST_CODEX_DIR: path.join(dir, 'codex'),
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@localhost',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@localhost',
  };
  fs.mkdirSync(env.ATTEST_CODEX_DIR!, { recursive: true });
  const ctx: BenchContext = { transcript: longSession(), dir, repo: fs.realpathSync(repo), env, state: {} };
  const rows: VerdictBenchRow[] = [];
  try {
    for (const s of VERDICT_SCENARIOS) {
      if (opts.only && !opts.only.includes(s.name)) continue;
      await s.setup(ctx);
      const times: number[] = [];
      let note = '';
      for (let i = 0; i < s.samples; i++) {
        const t0 = performance.now();
        note = await s.run(ctx);
        times.push(performance.now() - t0);
      }
      if (s.describe) note = s.describe(ctx);
      times.sort((a, b) => a - b);
      rows.push({
        name: s.name,
        medianMs: times[Math.floor(times.length / 2)]!,
        p99Ms: times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)]!,
        maxMs: times[times.length - 1]!,
        samples: s.samples,
        goalMs: s.goalMs,
        note,
      });
    }
  } finally {
    await (ctx.state.gateway as VerdictGateway | undefined)?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function formatVerdictBench(rows: VerdictBenchRow[]): string {
  const w = Math.max(...rows.map((r) => r.name.length));
  const out = [`${'scenario'.padEnd(w)}  median ms  p99 ms  max ms  goal ms  met  result`];
  for (const r of rows) {
    const met = r.medianMs <= r.goalMs ? 'yes' : 'NO';
    out.push(
      `${r.name.padEnd(w)}  ${r.medianMs.toFixed(1).padStart(9)}  ${r.p99Ms.toFixed(1).padStart(6)}  ` +
        `${r.maxMs.toFixed(1).padStart(6)}  ${String(r.goalMs).padStart(7)}  ${met.padEnd(3)}  ${r.note}`,
    );
  }
  out.push('', ...verdictLines(rows));
  return out.join('\n');
}

/** The issue's three goals, each as one line: the goal, what was measured, PASS or FAIL. */
export function verdictLines(rows: VerdictBenchRow[]): string[] {
  const find = (prefix: string) => rows.find((r) => r.name.startsWith(prefix));
  const line = (goal: string, row: VerdictBenchRow | undefined, pass: (r: VerdictBenchRow) => boolean, why = '') =>
    `verdict: ${goal.padEnd(62)} measured ` +
    `${row ? `${row.medianMs.toFixed(1)} ms`.padStart(10) : 'not run'.padStart(10)}  ` +
    `${row && !why && pass(row) ? 'PASS' : 'FAIL'}${why}`;
  const verify = find('attest verify');
  return [
    line('GET …/verdict, PR of 20 sessions, 100k in store: p50 <= 30 ms', find('GET verdict'), (r) => r.medianMs <= 30),
    line(
      'facts of a 1,000-turn session (full tier): median <= 20 ms',
      find('facts of a 1,000-turn'),
      (r) => r.medianMs <= 20,
    ),
    line(
      'attest verify, 1,000-turn session, built CLI: median < 1 s',
      verify,
      (r) => r.medianMs < 1000,
      verify && !fs.existsSync(BUILT) ? ' (measured through tsx: run `npm run build` first)' : '',
    ),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatVerdictBench(await runVerdictBench()));
}
