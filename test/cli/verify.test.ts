// `attest verify` as an agent runs it before opening a pull request: this machine's transcripts of the
// current branch, the repository's local policy and the branch's commits, judged by the verdict module.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliHome } from './cli-helpers.js';
import { renderClaude, renderCodex } from '../fixtures/verification/render.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-C', cwd, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@x',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@x',
    },
  }).trim();

describe('attest verify', () => {
  it('judges the branch from local sessions: an uncovered commit is review (exit 0), block-level exits 1', async () => {
    const home = cliHome();
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(home.dir, 'repo-')));
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), '# shop\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'init');
    git(repo, 'checkout', '-qb', 'feat/cart');
    fs.mkdirSync(path.join(repo, 'src'));
    fs.writeFileSync(path.join(repo, 'src/cart.ts'), 'export const total = 1;\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'fix cart');
    const sha = git(repo, 'rev-parse', 'HEAD');
    // A human's commit on the branch, made by no session.
    fs.writeFileSync(path.join(repo, 'src/tax.ts'), 'export const tax = 0;\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'tax');
    const human = git(repo, 'rev-parse', 'HEAD');

    const project = path.join(home.claudeDir, repo.replace(/[/.]/g, '-'));
    fs.mkdirSync(project, { recursive: true });
    const claude = renderClaude({
      id: '5e0c1a2b-0000-4000-8000-000000000001',
      agent: 'claude',
      startedAt: '2026-11-02T10:00:00Z',
      cwd: repo,
      branch: 'feat/cart',
      steps: [
        { bash: 'npm test', exit: 1, out: 'Tests  1 failed (3)' },
        { edit: 'src/cart.ts' },
        { bash: 'cd . && npx vitest run', out: 'Tests  3 passed (3)' },
        { bash: 'git commit -am "fix cart"', out: `[feat/cart ${sha.slice(0, 7)}] fix cart\n 1 file changed` },
      ],
    });
    fs.writeFileSync(path.join(project, '5e0c1a2b-0000-4000-8000-000000000001.jsonl'), claude);
    // Another branch's session is not this branch's evidence.
    const other = renderCodex({
      id: '0199a1b2-0000-7000-8000-000000000002',
      agent: 'codex',
      startedAt: '2026-11-02T09:00:00Z',
      cwd: repo,
      branch: 'main',
      steps: [{ bash: 'git push --no-verify' }],
    });
    fs.mkdirSync(path.join(home.codexDir, '2026/11/02'), { recursive: true });
    fs.writeFileSync(path.join(home.codexDir, '2026/11/02/rollout-2026-11-02T09-00-00-x.jsonl'), other);

    const first = await home.run(['verify', '--repo', repo, '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({
      branch: 'feat/cart',
      base: 'main',
      sessions: 1,
      verdict: 'review',
      flagged: 1,
      blocked: false,
    });
    const rows = Object.fromEntries(
      (first.json.rows as { validator: string; status: string }[]).map((r) => [r.validator, r.status]),
    );
    expect(rows).toEqual({
      'tests-after-last-edit': 'pass',
      'red-then-green': 'pass',
      'no-test-tampering': 'pass',
      'hooks-kept': 'pass',
      'commit-provenance': 'flag',
      'findings-settled': 'pass',
    });
    const provenance = (first.json.rows as { validator: string; sentence: string }[]).find(
      (r) => r.validator === 'commit-provenance',
    );
    expect(provenance?.sentence).toBe(
      `1 of 2 commits came from recorded sessions; no session made ${human.slice(0, 7)}.`,
    );

    // The repository's policy makes a custom validator over src/** blocking; the session never ran the linter.
    fs.mkdirSync(path.join(repo, '.attest/validators'), { recursive: true });
    fs.writeFileSync(
      path.join(repo, '.attest/validators/lint.yaml'),
      "level: block\nwhen:\n  paths: ['src/**']\nrequire:\n  ran: [npx eslint .]\n",
    );
    fs.writeFileSync(path.join(repo, '.attest/policy.yaml'), 'validators:\n  commit-provenance: off\n');
    const second = await home.run(['verify', '--repo', repo]);
    expect(second.code).toBe(1);
    expect(second.stdout).toContain('Verdict: review (1 flagged): 1 session(s) on branch feat/cart, against main');
    expect(second.stdout).toContain('FLAG  block custom:lint: Missing a passing `npx eslint .`.');
    expect(second.stdout).not.toContain('commit-provenance');
    expect(second.stdout).toContain('the Attest evidence check would fail');
  });
});
