// The verdict does not depend on the capture tier (issue 39): one Claude Code transcript, synced by the CLI at
// the default `redacted` tier into one factory and at `--tier full` into another, gives the same verdict, rows
// and refs from GET /v1/prs/{owner}/{repo}/{number}/verdict — the facts travel without the command text.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindInstallation } from '../github-double/setup.js';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { deliver, pullRequestDelivery, startWithGithub, type GithubGateway } from '../areas/webhooks/github.js';
import { renderClaude } from '../fixtures/verification/render.js';
import { cliHome } from './cli-helpers.js';

const REPO = 'acme/api';
const SESSION_ID = '7a1e0c3d-0000-4000-8000-000000000039';

let g: GithubGateway;
let url: string;
beforeAll(async () => {
  g = await startWithGithub();
  url = await g.gw.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await g?.close();
});

describe('the verdict of a CLI-synced session', { timeout: 300_000 }, () => {
  it('is the same at the redacted tier as at the full tier', async () => {
    const installation = g.github.addInstallation('acme', { ...g.github.appPermissions, checks: 'write' });
    g.github.addRepository(REPO, { installation });
    const redacted = await createTenant(g.gw, { plan: 'paid' });
    const full = await createTenant(g.gw, { plan: 'paid' });
    for (const t of [redacted, full]) {
      await bindInstallation(g.gw, t.appId, installation.id);
      const r = await g.gw.call('POST', '/v1/repositories', {
        token: t.factoryKey,
        appId: t.appId,
        body: { repository: REPO, installationId: installation.id },
      });
      expect(r.status, r.text).toBe(201);
    }
    // One pull request of two commits; the session made the first, a person the second.
    g.github.pushBranch(REPO, 'feat/login', 2);
    const pull = g.github.openPullAs('alice', REPO, 'feat/login', 'Fix login');
    pull.files = [{ filename: 'src/login.ts', status: 'modified' }];
    const [mine, foreign] = g.github.repo(REPO).branches.get('feat/login')!.slice(-2) as [string, string];
    const delivered = await deliver(
      g,
      'pull_request',
      pullRequestDelivery({
        repository: REPO,
        number: pull.number,
        title: 'Fix login',
        head: 'feat/login',
        headSha: pull.headSha,
        updatedAt: '2026-11-20T11:00:00Z',
        installationId: installation.id,
      }),
    );
    expect(delivered.status, delivered.text).toBeLessThan(300);

    const transcript =
      renderClaude({
        id: SESSION_ID,
        agent: 'claude',
        startedAt: '2026-11-20T10:00:00Z',
        branch: 'feat/login',
        steps: [
          { edit: 'src/login.ts' },
          { bash: 'npx vitest run', exit: 1, out: ' Test Files  1 failed (3)\n      Tests  1 failed | 11 passed (12)' },
          { edit: 'src/login.ts' },
          { bash: 'npx vitest run', out: ' Test Files  3 passed (3)\n      Tests  12 passed (12)' },
          { bash: 'git commit -am "fix login"', out: `[feat/login ${mine.slice(0, 7)}] fix login\n 1 file changed` },
        ],
      }).trimEnd() +
      '\n' +
      JSON.stringify({
        type: 'pr-link',
        sessionId: SESSION_ID,
        prNumber: pull.number,
        prUrl: `https://github.com/${REPO}/pull/${pull.number}`,
        prRepository: REPO,
        timestamp: '2026-11-20T10:05:00.000Z',
      }) +
      '\n';

    const verdictOf = async (t: Tenant, tier: string[]) => {
      const home = cliHome();
      const login = await home.run(['login', '--url', url, '--api-key', t.factoryKey, '--app-id', t.appId]);
      expect(login.code, login.stderr).toBe(0);
      fs.mkdirSync(path.join(home.claudeDir, 'proj-api'), { recursive: true });
      fs.writeFileSync(path.join(home.claudeDir, 'proj-api', `${SESSION_ID}.jsonl`), transcript);
      const sync = await home.run(['sync', '--json', ...tier]);
      expect(sync.code, sync.stderr).toBe(0);
      const res = await g.gw.call('GET', `/v1/prs/${REPO}/${pull.number}/verdict`, {
        token: t.factoryKey,
        appId: t.appId,
      });
      expect(res.status, res.text).toBe(200);
      const session = (
        await g.gw.call('GET', `/v1/prs/${REPO}/${pull.number}`, { token: t.factoryKey, appId: t.appId })
      ).body.data.sessionList[0];
      const detail = await g.gw.call('GET', `/v1/sessions/${session.traceId}`, { token: t.factoryKey, appId: t.appId });
      return { verdict: res.body.data, traceId: session.traceId as string, detail: detail.body.data };
    };
    const a = await verdictOf(redacted, []);
    const b = await verdictOf(full, ['--tier', 'full']);
    expect(a.detail.captureTier).toBe('redacted');
    expect(b.detail.captureTier).toBe('full');
    // The command text travels only at the full tier; the facts at both.
    expect(a.detail.verification.runs.every((r: { command?: string }) => r.command === undefined)).toBe(true);
    expect(b.detail.verification.runs[0].command).toBe('npx vitest run');

    // The row shape with each tier's own trace id put back to one name: everything else is equal.
    const shape = (v: { traceId: string; verdict: { rows: unknown[] } }) =>
      JSON.parse(JSON.stringify(v.verdict).split(v.traceId).join('TRACE')) as Record<string, unknown>;
    const [ra, rb] = [shape(a), shape(b)];
    expect(ra).toMatchObject({ repository: REPO, number: pull.number, verdict: 'review', flagged: 1 });
    for (const key of ['verdict', 'flagged', 'headSha', 'policy'] as const) expect(ra[key], key).toEqual(rb[key]);
    const rows = (r: Record<string, unknown>) =>
      (r.rows as Array<Record<string, unknown>>).map((x) => ({
        validator: x.validator,
        status: x.status,
        level: x.level,
        refs: (x.refs as Array<Record<string, unknown>>).map((ref) => ({
          traceId: ref.traceId,
          turnIndex: ref.turnIndex,
        })),
      }));
    expect(rows(ra)).toEqual(rows(rb));
    // Turns: 1 edit, 2 failing run, 3 edit, 4 passing run, 5 commit.
    const ref = (...turns: number[]) => turns.map((turnIndex) => ({ traceId: 'TRACE', turnIndex }));
    expect(rows(ra)).toEqual([
      { validator: 'tests-after-last-edit', status: 'pass', level: 'warn', refs: ref(3, 4) },
      { validator: 'red-then-green', status: 'pass', level: 'info', refs: ref(2, 3, 4) },
      { validator: 'no-test-tampering', status: 'pass', level: 'warn', refs: [] },
      { validator: 'hooks-kept', status: 'pass', level: 'warn', refs: [] },
      { validator: 'commit-provenance', status: 'flag', level: 'warn', refs: ref(5) },
      { validator: 'findings-settled', status: 'pass', level: 'warn', refs: [] },
    ]);
    expect(JSON.stringify(ra)).toContain(foreign.slice(0, 7));
  });
});
