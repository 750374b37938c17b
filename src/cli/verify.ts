// `attest verify`: the agent's self-check before any pull request exists. It reads this machine's transcripts
// of the current git branch, the repository's local .attest policy and the branch's commits, and evaluates
// them with the same module and rows a reviewer will see on the PR. Nothing leaves the machine.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import type { Command } from 'commander';
import { parseClaudeCodeTranscript, parseCodexRollout } from '../capture/index.js';
// The modules themselves, not verify/index.js: its schemas would load TypeBox (a third of the command's start).
import { evaluate } from '../verify/evaluate.js';
import { factsOfDocument } from '../verify/facts.js';
import { defaultPolicy } from '../verify/constants.js';
import type { Evaluation, LinkedSession } from '../verify/schema.js';
import { action, printJson } from './output.js';
import { CliError } from './profile.js';
import { discover } from './sync/discovery.js';

/** A git command's output, or undefined when it failed. Each costs a process start: callers run them together. */
function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', cwd, ...args], { encoding: 'utf8', timeout: 10_000, maxBuffer: 64 << 20 }, (err, out) =>
      resolve(err ? undefined : out.trim()),
    );
  });
}

const DEFAULT_BASES = [
  ['origin/HEAD', 'refs/remotes/origin/HEAD'],
  ['origin/main', 'refs/remotes/origin/main'],
  ['origin/master', 'refs/remotes/origin/master'],
  ['main', 'refs/heads/main'],
  ['master', 'refs/heads/master'],
] as const;

/** The ref the branch will merge into: the one given, else the remote's default branch, else main or master. */
async function baseRef(cwd: string, given: string | undefined): Promise<string | undefined> {
  if (given)
    return (await git(cwd, ['rev-parse', '--verify', '--quiet', `${given}^{commit}`])) === undefined
      ? undefined
      : given;
  // One git process for the five candidates: the refs that exist, in any order.
  const present = new Set(
    lines(await git(cwd, ['for-each-ref', '--format=%(refname)', ...DEFAULT_BASES.map(([, r]) => r)])),
  );
  return DEFAULT_BASES.find(([, full]) => present.has(full))?.[0];
}

function lines(text: string | undefined): string[] {
  return (text ?? '').split('\n').filter((l) => l.trim() !== '');
}

function policyFiles(root: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of ['policy.yaml', 'policy.yml']) {
    const file = path.join(root, '.attest', name);
    if (fs.existsSync(file)) out.push({ path: `.attest/${name}`, text: fs.readFileSync(file, 'utf8') });
  }
  const dir = path.join(root, '.attest', 'validators');
  if (fs.existsSync(dir)) {
    for (const name of fs.readdirSync(dir).sort()) {
      if (/\.ya?ml$/.test(name))
        out.push({ path: `.attest/validators/${name}`, text: fs.readFileSync(path.join(dir, name), 'utf8') });
    }
  }
  return out;
}

/** This machine's sessions that worked on `branch` inside `root`, with their facts (full tier: commands included). */
function localSessions(root: string, branch: string): LinkedSession[] {
  const sessions: LinkedSession[] = [];
  for (const file of discover()) {
    const text = fs.readFileSync(file.path, 'utf8');
    // Cheap first look: a transcript that never names the branch did not work on it.
    if (!text.includes(JSON.stringify(branch))) continue;
    const opts = { tier: 'full' as const, sourcePath: file.path };
    const doc = file.kind === 'codex' ? parseCodexRollout(text, opts) : parseClaudeCodeTranscript(text, opts);
    const cwd = doc.env.cwd;
    if (doc.env.gitBranch !== branch || !cwd || (cwd !== root && !cwd.startsWith(`${root}/`))) continue;
    const s: LinkedSession = {
      traceId: doc.id,
      sessionId: doc.id,
      startedAt: doc.startedAt,
      verification: factsOfDocument(doc),
    };
    if (doc.endedAt) s.endedAt = doc.endedAt;
    sessions.push(s);
  }
  return sessions;
}

const MARK: Record<string, string> = { pass: 'pass', flag: 'FLAG', fail: 'FAIL', error: 'ERROR' };

function printHuman(branch: string, base: string | undefined, count: number, e: Evaluation): void {
  const w = (s: string) => process.stdout.write(`${s}\n`);
  if (e.verdict === 'none') {
    w(`No agent session on this machine worked on branch ${branch}: nothing to verify.`);
    return;
  }
  const flagged = e.verdict === 'review' || e.flagged > 0 ? ` (${e.flagged} flagged)` : '';
  w(`Verdict: ${e.verdict}${flagged}: ${count} session(s) on branch ${branch}${base ? `, against ${base}` : ''}`);
  for (const r of e.rows) {
    const turns =
      r.refs.length > 0 ? `  [${r.refs.map((x) => `${x.sessionId.slice(0, 8)}#turn-${x.turnIndex}`).join(', ')}]` : '';
    w(`  ${MARK[r.status]!.padEnd(5)} ${r.level.padEnd(5)} ${r.validator}: ${r.sentence}${turns}`);
  }
  if (e.blocked) w('A block-level row did not pass: the Attest evidence check would fail.');
}

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      "evaluate this machine's agent sessions of the current git branch as a reviewer will see them (exit 1 when a " +
        'block-level row fails)',
    )
    .option('--repo <dir>', 'the repository (default: the current directory)')
    .option(
      '--base <ref>',
      'the branch the pull request will merge into (default: origin/HEAD, origin/main, main, master)',
    )
    .option('--json', 'print the evaluation as JSON')
    .action(
      action(async (flags: { repo?: string; base?: string; json?: boolean }) => {
        const cwd = path.resolve(flags.repo ?? process.cwd());
        // The work tree and branch, and the base, at once: git answers each from the same repository.
        const [head, base] = await Promise.all([
          git(cwd, ['rev-parse', '--show-toplevel', '--abbrev-ref', 'HEAD']),
          baseRef(cwd, flags.base),
        ]);
        // A repository without commits has no HEAD to name: ask for the work tree alone to tell the two apart.
        const [root, branch] = head ? lines(head) : [await git(cwd, ['rev-parse', '--show-toplevel'])];
        if (!root) throw new CliError(`${cwd} is not inside a git repository.`);
        if (!branch || branch === 'HEAD')
          throw new CliError('No branch is checked out (detached HEAD): check out the branch to verify.');
        if (flags.base && !base) throw new CliError(`--base ${flags.base} is not a commit in this repository.`);
        // `base..HEAD` and `base...HEAD` start from the merge base, so the four run together; without a merge
        // base (unrelated histories) there is no commit list and no diff.
        const [mergeBase, commitList, branchDiff, worktreeDiff] = base
          ? await Promise.all([
              git(root, ['merge-base', base, 'HEAD']),
              git(root, ['rev-list', '--reverse', `${base}..HEAD`]),
              git(root, ['diff', '--name-only', `${base}...HEAD`]),
              git(root, ['diff', '--name-only', 'HEAD']),
            ])
          : [];
        const commits = mergeBase ? lines(commitList) : null;
        const changed = mergeBase ? [...new Set([...lines(branchDiff), ...lines(worktreeDiff)])].sort() : null;
        // The YAML reader loads only for a repository that has policy files.
        const files = policyFiles(root);
        const policy = files.length > 0 ? (await import('../verify/policy.js')).parsePolicy(files) : defaultPolicy();
        const sessions = localSessions(fs.realpathSync(root), branch);
        const evaluation = evaluate({
          sessions,
          waiting: false,
          commits,
          changedFiles: changed,
          ci: null,
          criteria: null,
          findings: [],
          history: { typecheck: false, lint: false },
          emitted: [],
          artifacts: [],
          policy,
        });
        if (flags.json)
          printJson({
            branch,
            base: base ?? null,
            sessions: sessions.length,
            ...evaluation,
            policy: { source: 'local', errors: policy.errors },
          });
        else printHuman(branch, base, sessions.length, evaluation);
        if (evaluation.blocked) process.exitCode = 1;
      }),
    );
}
