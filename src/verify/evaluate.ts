// The evaluation of a pull request: each validator reads the facts of the linked sessions (as one timeline,
// sessions in the order they started) and what the PR carries, and says pass, flag or fail with the turns
// that prove it; the verdict follows from the rows. Pure and deterministic.
import picomatch from 'picomatch';
import { readCommand } from './commands.js';
import { isProseFile } from './facts.js';
import { simpleCommands } from './shell.js';
import type {
  CommandRun,
  CustomValidator,
  Evaluation,
  FileEdit,
  PolicyLevel,
  RowLevel,
  RowStatus,
  TurnRef,
  Verdict,
  VerdictInput,
  VerdictRow,
} from './schema.js';
import { BUILTIN_VALIDATORS, DEFAULT_LEVELS } from './constants.js';
import { sameCommit } from './commits.js';

/** A fact placed on the timeline: `pos` orders facts across sessions. */
interface Placed<T> {
  pos: number;
  /** How a sentence names the turn: `turn 4`, or `turn 4 of session 0199a1b2` when several sessions count. */
  label: string;
  ref: TurnRef;
  fact: T;
}

interface Timeline {
  /** Whether any linked session has facts (otherwise the session-based rows are not checkable). */
  checkable: boolean;
  runs: Placed<CommandRun>[];
  /** Edits of code (prose files left out): these make earlier runs stale. */
  edits: Placed<FileEdit>[];
  commits: Set<string>;
  bypasses: Placed<string>[];
}

const MAX_REFS = 5;
/** Turns per session on the timeline; a session never has this many. */
const SESSION_SPAN = 1e9;

function timeline(input: VerdictInput): Timeline {
  const sessions = [...input.sessions].sort(
    (a, b) => cmp(a.startedAt, b.startedAt) || cmp(a.traceId, b.traceId) || cmp(a.sessionId, b.sessionId),
  );
  const t: Timeline = { checkable: false, runs: [], edits: [], commits: new Set(), bypasses: [] };
  const several = sessions.filter((s) => s.verification).length > 1;
  sessions.forEach((s, k) => {
    const v = s.verification;
    if (!v) return;
    t.checkable = true;
    const place = <T>(turnIndex: number, fact: T): Placed<T> => ({
      pos: k * SESSION_SPAN + turnIndex,
      label: several ? `turn ${turnIndex} of session ${s.sessionId.slice(0, 8)}` : `turn ${turnIndex}`,
      ref: { traceId: s.traceId, sessionId: s.sessionId, turnIndex },
      fact,
    });
    for (const r of v.runs) t.runs.push(place(r.turnIndex, r));
    for (const e of v.edits) if (e.file === undefined || !isProseFile(e.file)) t.edits.push(place(e.turnIndex, e));
    for (const c of v.commits) t.commits.add(c.toLowerCase());
    for (const b of v.bypasses) t.bypasses.push(place(b.turnIndex, b.how));
  });
  const byPos = <T>(a: Placed<T>, b: Placed<T>) => a.pos - b.pos;
  t.runs.sort(byPos);
  t.edits.sort(byPos);
  t.bypasses.sort(byPos);
  return t;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function refs(...placed: (Placed<unknown> | undefined)[]): TurnRef[] {
  const out: TurnRef[] = [];
  for (const p of placed) {
    if (!p || out.some((r) => r.traceId === p.ref.traceId && r.turnIndex === p.ref.turnIndex)) continue;
    out.push(p.ref);
  }
  return out.slice(0, MAX_REFS);
}

function turnOf(p: Placed<unknown>): string {
  return p.label;
}

type Draft = { status: RowStatus; sentence: string; refs: TurnRef[] };

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

// ---------------------------------------------------------------------------------------------------------
// The built-in validators. Each returns undefined when it has nothing to say.

/** A check of kind `kind` passed after the last code edit. */
function afterLastEdit(t: Timeline, kind: 'test' | 'typecheck' | 'lint', noun: string): Draft | undefined {
  const last = t.edits[t.edits.length - 1];
  if (!t.checkable || !last) return undefined;
  const after = t.runs.filter((r) => r.fact.kind === kind && r.pos > last.pos);
  const passed = after.filter((r) => r.fact.result === 'pass');
  const full = passed.filter((r) => r.fact.scope === 'full');
  if (full.length > 0) {
    const p = full[full.length - 1]!;
    return {
      status: 'pass',
      sentence: `The whole ${noun} passed after the last edit (${turnOf(p)}).`,
      refs: refs(last, p),
    };
  }
  if (passed.length > 0) {
    const p = passed[passed.length - 1]!;
    const what = p.fact.command
      ? `\`${clip(p.fact.command)}\``
      : p.fact.scope === 'partial'
        ? 'a partial run'
        : 'a run not known to cover all of it';
    return {
      status: 'pass',
      sentence: `The ${noun} passed after the last edit, but only in ${what} (${turnOf(p)}).`,
      refs: refs(last, p),
    };
  }
  if (after.length > 0) {
    const r = after[after.length - 1]!;
    const how = r.fact.result === 'fail' ? 'failed' : 'gave no readable result';
    return {
      status: 'flag',
      sentence: `The last ${noun} run after the last edit ${how} (${turnOf(r)}).`,
      refs: refs(last, r),
    };
  }
  return { status: 'flag', sentence: `No ${noun} ran after the last edit (${turnOf(last)}).`, refs: refs(last) };
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function tests(t: Timeline): Placed<CommandRun>[] {
  return t.runs.filter((r) => r.fact.kind === 'test');
}

/** A test failed, then code (not tests) changed, then a test passed. */
function redThenGreen(t: Timeline): Draft | undefined {
  const runs = tests(t);
  if (!t.checkable || runs.length === 0) return undefined;
  for (const red of runs) {
    if (red.fact.result !== 'fail') continue;
    const fix = t.edits.find((e) => e.pos > red.pos && !e.fact.test);
    if (!fix) continue;
    const green = runs.find((r) => r.pos > fix.pos && r.fact.result === 'pass');
    if (green) {
      return {
        status: 'pass',
        sentence:
          `A test failed (${turnOf(red)}), the code changed (${turnOf(fix)}) and the tests then passed (` +
          `${turnOf(green)}).`,
        refs: refs(red, fix, green),
      };
    }
  }
  return { status: 'flag', sentence: 'No test was seen failing before the change and passing after it.', refs: [] };
}

/** A failing test made to pass by editing only test files in between. */
function noTestTampering(t: Timeline): Draft | undefined {
  const runs = tests(t);
  if (!t.checkable) return undefined;
  let fixed = 0;
  for (let i = 0; i < runs.length; i++) {
    const red = runs[i]!;
    if (red.fact.result !== 'fail') continue;
    const green = runs.slice(i + 1).find((r) => r.fact.result === 'pass');
    if (!green) continue;
    const between = t.edits.filter((e) => e.pos > red.pos && e.pos < green.pos);
    if (between.length === 0) continue;
    fixed += 1;
    if (between.every((e) => e.fact.test)) {
      const files = [...new Set(between.map((e) => e.fact.file).filter((f): f is string => f !== undefined))];
      const named = files.length > 0 ? `: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ', …' : ''}` : '';
      const passed = `A failing test (${turnOf(red)}) passed (${turnOf(green)}) after only test files were edited`;
      return {
        status: 'flag',
        sentence: `${passed}${named}.`,
        refs: refs(red, ...between.slice(0, 3), green),
      };
    }
  }
  if (fixed === 0) return undefined;
  return {
    status: 'pass',
    sentence: 'Failing tests were made to pass by changing code, not only the tests.',
    refs: [],
  };
}

function hooksKept(t: Timeline): Draft | undefined {
  if (!t.checkable) return undefined;
  if (t.bypasses.length > 0) {
    const ways = [...new Set(t.bypasses.map((b) => b.fact))];
    return {
      status: 'fail',
      sentence:
        `${capital(plural(t.bypasses.length, 'commit or push', 'commits or pushes'))} skipped the repository's ` +
        `hooks (${ways.join(', ')}; ${t.bypasses.slice(0, 3).map(turnOf).join(', ')}).`,
      refs: refs(...t.bypasses),
    };
  }
  const gitRuns = t.runs.filter((r) => r.fact.kind === 'commit' || r.fact.kind === 'push');
  if (gitRuns.length === 0) return undefined;
  return { status: 'pass', sentence: "Every commit and push ran the repository's hooks.", refs: [] };
}

function commitProvenance(t: Timeline, prCommits: string[] | null): Draft | undefined {
  if (!t.checkable || prCommits === null || prCommits.length === 0) return undefined;
  const ours = [...t.commits];
  const matches = (sha: string) => ours.some((c) => sameCommit(c, sha));
  const foreign = prCommits.filter((c) => !matches(c));
  const k = prCommits.length - foreign.length;
  const commitRuns = t.runs.filter((r) => r.fact.kind === 'commit' && r.fact.result !== 'fail');
  const head = `${k} of ${plural(prCommits.length, 'commit')} came from recorded sessions`;
  if (foreign.length === 0) return { status: 'pass', sentence: `${head}.`, refs: refs(...commitRuns) };
  const names = foreign.slice(0, 5).map((c) => c.slice(0, 7));
  const more = foreign.length > 5 ? ` and ${foreign.length - 5} more` : '';
  return {
    status: 'flag',
    sentence: `${head}; no session made ${names.join(', ')}${more}.`,
    refs: refs(...commitRuns),
  };
}

function ciGreen(ci: VerdictInput['ci']): Draft | undefined {
  if (!ci) return undefined;
  if (ci.state === 'success') return { status: 'pass', sentence: 'CI passed at the head commit.', refs: [] };
  if (ci.state === 'pending') return { status: 'flag', sentence: 'CI has not finished at the head commit.', refs: [] };
  const names = [...ci.failed].sort(cmp);
  const which = names.length > 0 ? `: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}` : '';
  return { status: 'fail', sentence: `CI failed at the head commit${which}.`, refs: [] };
}

function criteriaProven(criteria: VerdictInput['criteria']): Draft | undefined {
  if (!criteria || criteria.length === 0) return undefined;
  const open = criteria.filter((c) => !c.proven);
  if (open.length === 0) {
    const all = plural(criteria.length, 'criterion', 'criteria');
    return {
      status: 'pass',
      sentence: `All ${all} of the work item have a live proving artifact.`,
      refs: [],
    };
  }
  const named = open
    .slice(0, 3)
    .map((c) => `"${clip(c.text)}"`)
    .join(', ');
  return {
    status: 'flag',
    sentence:
      `${open.length} of ${plural(criteria.length, 'criterion', 'criteria')} lack a live proving artifact: ${named}` +
      `${open.length > 3 ? ', …' : ''}.`,
    refs: [],
  };
}

function findingsSettled(findings: VerdictInput['findings']): Draft {
  const serious = findings.filter((f) => f.severity === 'high' || f.severity === 'critical');
  if (serious.length === 0) return { status: 'pass', sentence: 'No high or critical finding is open.', refs: [] };
  const sorted = [...serious].sort(
    (a, b) => cmp(a.severity === 'critical' ? '0' : '1', b.severity === 'critical' ? '0' : '1') || cmp(a.id, b.id),
  );
  const named = sorted
    .slice(0, 3)
    .map((f) => `${f.severity}: "${clip(f.title)}"`)
    .join(', ');
  return {
    status: 'flag',
    sentence:
      `${capital(plural(serious.length, 'high or critical finding'))} still open (${named}` +
      `${serious.length > 3 ? ', …' : ''}).`,
    refs: [],
  };
}

// ---------------------------------------------------------------------------------------------------------
// The repository's own validators.

/** Whether a run satisfies a `require.ran` matcher, read by the same parser as the session's commands. */
function satisfies(run: CommandRun, matcher: string): boolean {
  if (run.result !== 'pass') return false;
  const wanted = readCommand(matcher);
  if (wanted.length > 0) {
    return wanted.every(
      (w) =>
        w.tool === run.tool &&
        w.kind === run.kind &&
        (w.target === undefined || w.target === run.target) &&
        (w.scope !== 'full' || run.scope === 'full'),
    );
  }
  // A matcher the tool table does not know: its words must begin one of the run's commands (full tier only).
  if (run.command === undefined) return false;
  const want = simpleCommands(matcher)[0]?.argv;
  if (!want || want.length === 0) return false;
  return simpleCommands(run.command).some((c) => want.every((w, i) => c.argv[i] === w));
}

function customRow(v: CustomValidator, t: Timeline, input: VerdictInput): Draft | undefined {
  if (v.paths.length > 0) {
    const files = input.changedFiles ?? t.edits.map((e) => e.fact.file).filter((f): f is string => f !== undefined);
    const match = picomatch(v.paths, { dot: true });
    if (!files.some((f) => match(f))) return undefined;
  }
  const missing: string[] = [];
  const proof: Placed<CommandRun>[] = [];
  for (const m of v.ran) {
    if (!t.checkable) {
      missing.push(`\`${m}\` (no session facts to check)`);
      continue;
    }
    const hit = [...t.runs].reverse().find((r) => satisfies(r.fact, m));
    if (hit) proof.push(hit);
    else missing.push(`a passing \`${m}\``);
  }
  for (const name of v.emitted) if (!input.emitted.includes(name)) missing.push(`the result "${name}"`);
  for (const kind of v.artifact) if (!input.artifacts.includes(kind)) missing.push(`a ${kind} artifact`);
  const about = v.description ? `${v.description.trim().replace(/\.$/, '')}: ` : '';
  if (missing.length === 0)
    return { status: 'pass', sentence: `${about}${about ? 'e' : 'E'}very requirement was met.`, refs: refs(...proof) };
  return {
    status: 'flag',
    sentence: `${about}${about ? 'm' : 'M'}issing ${missing.join(', ')}.`,
    refs: refs(...proof),
  };
}

// ---------------------------------------------------------------------------------------------------------

function levelOf(input: VerdictInput, id: string, fallback: PolicyLevel): PolicyLevel {
  return input.policy.levels[id] ?? DEFAULT_LEVELS[id] ?? fallback;
}

export function evaluate(input: VerdictInput): Evaluation {
  // A pull request no agent session is linked to (and none expected) is a person's work: left alone.
  if (input.sessions.length === 0 && !input.waiting) return { verdict: 'none', flagged: 0, blocked: false, rows: [] };
  const t = timeline(input);
  const rows: VerdictRow[] = [];
  for (const e of input.policy.errors) {
    rows.push({
      validator: 'policy',
      status: 'error',
      level: 'warn',
      sentence: `${e.file} could not be used (${e.message}); it was ignored.`,
      refs: [],
    });
  }
  // Sessions linked, none with facts (all captured at the metrics tier): every rule that reads facts is not
  // checkable and shows no row, so the remaining rows (findings, CI) could all pass. That must never read as
  // clean: nothing proves what the agent did, which is itself a reason to review.
  if (!t.checkable && input.sessions.length > 0) {
    const n = input.sessions.length;
    rows.push({
      validator: 'session-facts',
      status: 'flag',
      level: 'warn',
      sentence:
        n === 1
          ? 'The linked session carries no verification facts (a metrics-tier capture, or none were sent): what it ' +
            'ran and edited cannot be checked.'
          : `None of the ${n} linked sessions carries verification facts (metrics-tier captures, or none were sent): ` +
            `what they ran and edited cannot be checked.`,
      refs: [],
    });
  }
  const history = {
    typecheck: input.history.typecheck || t.runs.some((r) => r.fact.kind === 'typecheck'),
    lint: input.history.lint || t.runs.some((r) => r.fact.kind === 'lint'),
  };
  const builtins: Record<(typeof BUILTIN_VALIDATORS)[number], () => Draft | undefined> = {
    'tests-after-last-edit': () => afterLastEdit(t, 'test', 'test suite'),
    'red-then-green': () => redThenGreen(t),
    'no-test-tampering': () => noTestTampering(t),
    'hooks-kept': () => hooksKept(t),
    'typecheck-after-last-edit': () => (history.typecheck ? afterLastEdit(t, 'typecheck', 'typecheck') : undefined),
    'lint-after-last-edit': () => (history.lint ? afterLastEdit(t, 'lint', 'linter') : undefined),
    'commit-provenance': () => commitProvenance(t, input.commits),
    'ci-green': () => ciGreen(input.ci),
    'criteria-proven': () => criteriaProven(input.criteria),
    'findings-settled': () => findingsSettled(input.findings),
  };
  for (const id of BUILTIN_VALIDATORS) {
    const level = levelOf(input, id, 'warn');
    if (level === 'off') continue;
    const d = builtins[id]();
    if (d) rows.push({ validator: id, level, ...d });
  }
  const custom = [...input.policy.custom].sort((a, b) => cmp(a.name, b.name));
  for (const v of custom) {
    const id = `custom:${v.name}`;
    const level = levelOf(input, id, v.level);
    if (level === 'off') continue;
    const d = customRow(v, t, input);
    if (d) rows.push({ validator: id, level, ...d });
  }
  return verdictOf(input, rows);
}

function counts(level: RowLevel): boolean {
  return level !== 'info';
}

function verdictOf(input: VerdictInput, rows: VerdictRow[]): Evaluation {
  const counted = rows.filter((r) => counts(r.level));
  const flagged = counted.filter((r) => r.status !== 'pass').length;
  const blocked = rows.some((r) => r.level === 'block' && r.status !== 'pass');
  let verdict: Verdict;
  if (input.waiting) verdict = 'waiting';
  else if (input.sessions.length === 0) verdict = 'none';
  else if (counted.some((r) => r.status === 'fail')) verdict = 'unverifiable';
  else if (flagged > 0) verdict = 'review';
  else verdict = 'clean';
  return { verdict, flagged, blocked, rows };
}
