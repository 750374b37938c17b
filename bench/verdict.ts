// `npm run bench -- verdict`: the verdict's costs (issue 39), one row per scenario with its goal:
// - facts of a 1,000-turn session (Claude Code shape, full tier: every shell command parsed) in at most 20 ms;
// - the same facts read back from the capture's events (what the gateway does at the redacted tier);
// - `attest verify` on a branch with a 1,000-turn session in under 1 s wall time (a spawned CLI process:
//   dist/main.js after `npm run build`, else through tsx; `--version` is timed too, the floor of any command).
// Scenarios live in VERDICT_SCENARIOS so further ones (the gateway's GET verdict) join the same table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseClaudeCodeTranscript } from '../src/capture/index.js';
import { captureSession } from '../src/capture/facts.js';
import { evaluate, factsOfDocument, parsePolicy } from '../src/verify/index.js';
import { renderClaude, type Step } from '../test/fixtures/verification/render.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface VerdictBenchRow {
  name: string;
  /** Median over the samples, ms. */
  medianMs: number;
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
  run(ctx: BenchContext): string;
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
  return `${e.verdict}${e.flagged ? ` (${e.flagged} flagged)` : ''}: ${e.rows.map((r) => `${r.validator} ${r.status}`).join(', ')}`;
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
      factsOfDocument(parseClaudeCodeTranscript(longSession(200, '/home/dev/other', 'x', '99'), { tier: 'full' })); // warm the wasm parser
    },
    run(ctx) {
      const docs = ctx.state.docs as Parameters<typeof factsOfDocument>[0][];
      const doc = docs[(ctx.state.next as number)++]!;
      const facts = factsOfDocument(doc)!;
      return `${doc.turns.length} turns, ${facts.runs.length} runs, ${facts.edits.length} edits; ${verdictLine(evaluateOne(facts))}`;
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
];

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
        note = s.run(ctx);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      rows.push({
        name: s.name,
        medianMs: times[Math.floor(times.length / 2)]!,
        maxMs: times[times.length - 1]!,
        samples: s.samples,
        goalMs: s.goalMs,
        note,
      });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export function formatVerdictBench(rows: VerdictBenchRow[]): string {
  const w = Math.max(...rows.map((r) => r.name.length));
  const out = [`${'scenario'.padEnd(w)}  median ms  max ms  goal ms  met  result`];
  for (const r of rows) {
    const met = r.medianMs <= r.goalMs ? 'yes' : 'NO';
    out.push(
      `${r.name.padEnd(w)}  ${r.medianMs.toFixed(1).padStart(9)}  ${r.maxMs.toFixed(1).padStart(6)}  ${String(r.goalMs).padStart(7)}  ${met.padEnd(3)}  ${r.note}`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatVerdictBench(await runVerdictBench()));
}
