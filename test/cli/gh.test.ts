// Issue 45 §4, the CLI's half: at `attest sync`, the PRs the sent sessions link to are read with `gh pr view
// --json` and sent to POST /v1/prs/reported. Driven with a fake `gh` on PATH that prints the JSON gh documents
// for `gh pr view --json` (and logs how it was called). A missing, failing or logged-out gh changes nothing on
// the gateway and prints nothing.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliHome,
  listeningGateway,
  loginWithFactoryKey,
  writeSmallTranscript,
  type CliHome,
  type ListeningGateway,
} from './cli-helpers.js';
import { GH_FIELDS } from '../../src/cli/gh.js';

let g: ListeningGateway;
beforeAll(async () => {
  g = await listeningGateway();
});
afterAll(async () => {
  await g.close();
});

const HEAD = `${'c0ffee'.repeat(6)}c0ff`;
/** `gh pr view 7 --repo acme/shop --json <GH_FIELDS>` as gh prints it (a merged PR). */
const GH_ANSWER = {
  author: { id: 'MDQ6VXNlcjE=', is_bot: false, login: 'octocat', name: 'Mona' },
  baseRefName: 'main',
  closedAt: '2026-10-03T10:00:00Z',
  createdAt: '2026-10-01T10:00:00Z',
  headRefName: 'fix/shop',
  headRefOid: HEAD,
  mergedAt: '2026-10-03T10:00:00Z',
  number: 7,
  state: 'MERGED',
  title: 'Fix the shop',
  updatedAt: '2026-10-03T10:05:00Z',
  url: 'https://github.com/acme/shop/pull/7',
};

/** A fake gh: `auth status` and `pr view` answer per mode; every call is logged to calls.log. */
function fakeGh(home: CliHome, mode: 'ok' | 'logged-out' | 'failing'): { bin: string; log: string } {
  const bin = path.join(home.dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const log = path.join(home.dir, 'calls.log');
  const answer = path.join(home.dir, 'answer.json');
  fs.writeFileSync(answer, JSON.stringify(GH_ANSWER));
  fs.writeFileSync(
    path.join(bin, 'gh'),
    `#!/bin/sh
echo "$@" >> '${log}'
case "$1 $2" in
  "auth status")
    if [ '${mode}' = 'logged-out' ]; then
      echo 'You are not logged into any GitHub hosts. To log in, run: gh auth login' >&2; exit 1
    fi
    echo 'github.com: Logged in to github.com account octocat' >&2; exit 0 ;;
  "pr view")
    if [ '${mode}' = 'failing' ]; then echo 'GraphQL: Could not resolve to a PullRequest' >&2; exit 1; fi
    if [ "$3" = '7' ]; then cat '${answer}'; exit 0; fi
    echo 'no pull requests found' >&2; exit 1 ;;
esac
exit 2
`,
    { mode: 0o755 },
  );
  return { bin, log };
}

/** A transcript of a session that links PR `number` of acme/shop (Claude Code's pr-link line). */
function transcriptLinking(home: CliHome, number: number): void {
  const id = crypto.randomUUID();
  const file = writeSmallTranscript(home, id);
  fs.appendFileSync(
    file,
    `${JSON.stringify({
      type: 'pr-link',
      prNumber: number,
      prUrl: `https://github.com/acme/shop/pull/${number}`,
      prRepository: 'acme/shop',
      timestamp: '2026-06-27T05:40:00.000Z',
      sessionId: id,
    })}\n`,
  );
}

async function pr(number: number) {
  const r = await g.gw.call('GET', `/v1/prs/acme/shop/${number}`, {
    token: g.tenant.factoryKey,
    appId: g.tenant.appId,
  });
  expect(r.status).toBe(200);
  return r.body.data as {
    state: string;
    merged: boolean | null;
    stateSource: string | null;
    headSha: string | null;
    title: string | null;
    mergedAt: string | null;
  };
}

describe('attest sync reads linked PRs with gh', { timeout: 300_000 }, () => {
  it('sends the state gh prints, which the gateway keeps as reported by the CLI', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    transcriptLinking(home, 7);
    const gh = fakeGh(home, 'ok');
    const sync = await home.run(['sync', '--json'], { PATH: `${gh.bin}:${home.env.PATH}` });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toBe('');
    expect(sync.json).toMatchObject({ sent: 1, pullRequestsReported: 1 });
    expect(fs.readFileSync(gh.log, 'utf8').trim().split('\n')).toEqual([
      'auth status --hostname github.com',
      `pr view 7 --repo acme/shop --json ${GH_FIELDS}`,
    ]);
    expect(await pr(7)).toMatchObject({
      state: 'merged',
      merged: true,
      stateSource: 'cli',
      headSha: HEAD,
      title: 'Fix the shop',
      mergedAt: '2026-10-03T10:00:00.000Z',
    });
    const text = await home.run(['sync'], { PATH: `${gh.bin}:${home.env.PATH}` });
    expect(text.code, text.stderr).toBe(0);
  });

  for (const mode of ['missing', 'logged-out', 'failing'] as const) {
    it(`a ${mode} gh changes nothing and prints nothing`, async () => {
      const number = { missing: 8, 'logged-out': 9, failing: 10 }[mode];
      const home = cliHome();
      await loginWithFactoryKey(home, g);
      transcriptLinking(home, number);
      const path_ = mode === 'missing' ? (home.env.PATH ?? '') : `${fakeGh(home, mode).bin}:${home.env.PATH}`;
      const sync = await home.run(['sync'], { PATH: path_ });
      expect(sync.code, sync.stderr).toBe(0);
      // stderr carries the progress lines only: nothing of gh's own messages, nor an error of ours.
      expect(sync.stderr).not.toMatch(/\bgh\b|pull request|error|graphql|logged|not found/i);
      expect(sync.stdout).toContain('Synced 1 session(s)');
      expect(sync.stdout).not.toMatch(/\bgh\b|pull request|error/i);
      expect(await pr(number)).toMatchObject({ state: 'unknown', merged: null, stateSource: null });
    });
  }
});
