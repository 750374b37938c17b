// The first hour with the CLI, right after `attest sync`: what costs, sessions and session say about what they
// show and leave out, unpriced models, a read with an ingest key, a URL without a scheme, a closed pipe, the
// evidence list commands, the sync summary, and a gateway that is down.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCommandLine } from '../helpers/cli-main.js';
import {
  cliHome,
  listeningGateway,
  loginWithFactoryKey,
  placeClaudeFixture,
  writeCodexRollout,
  ROOT,
  type CliHome,
  type ListeningGateway,
} from './cli-helpers.js';

let g: ListeningGateway;
let home: CliHome;
const as = () => ({ token: g.tenant.factoryKey, appId: g.tenant.appId });

interface Row {
  traceId: string;
  sessionId: string;
  startedAt: string;
  repo: string;
  costUsd: number;
  unpricedModels: string[];
  isSubagent: boolean;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

async function allSessions(): Promise<Row[]> {
  const res = await g.gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1&limit=100', as());
  expect(res.status).toBe(200);
  return res.body.data.sessions as Row[];
}

const UNPRICED_ID = 'b0b0b0b0-0000-4000-8000-000000000001';

/** A Claude Code transcript on a model no price list knows: 5 input and 9 output tokens. */
function writeUnpricedTranscript(h: CliHome): void {
  const base = { sessionId: UNPRICED_ID, version: '2.1.200', cwd: '/nonexistent/app', isSidechain: false };
  const lines = [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-07-01T10:00:00.000Z',
      message: { role: 'user', content: 'hello' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      timestamp: '2026-07-01T10:00:04.000Z',
      message: {
        id: 'msg_1',
        model: 'claude-imaginary-1',
        role: 'assistant',
        content: [{ type: 'text', text: 'hi' }],
        usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
  ];
  fs.mkdirSync(path.join(h.claudeDir, 'proj-u'), { recursive: true });
  fs.writeFileSync(
    path.join(h.claudeDir, 'proj-u', `${UNPRICED_ID}.jsonl`),
    `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
  );
}

let synced: { code: number | null; stdout: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let dry: any;
beforeAll(async () => {
  g = await listeningGateway();
  home = cliHome();
  await loginWithFactoryKey(home, g);
  // Two Codex sessions in acme/shop (priced), one Claude session without a repository on an unpriced model,
  // and one subagent session. All of them older than 30 days.
  writeCodexRollout(home, '0199a1b2-c3d4-7e5f-8a9b-000000000001');
  writeCodexRollout(home, '0199a1b2-c3d4-7e5f-8a9b-000000000002');
  writeUnpricedTranscript(home);
  placeClaudeFixture(
    home,
    's01-small-ee5e9b07.jsonl',
    'proj-a/6c106dc6-97d0-4c43-854e-18d33b520e2d/subagents',
    'agent-aab574376abcb02f3.jsonl',
  );
  dry = (await home.run(['sync', '--dry-run', '--json'])).json;
  synced = await home.run(['sync']);
}, 120_000);
afterAll(async () => {
  await g.close();
});

describe('attest sync says what it sent', { timeout: 300_000 }, () => {
  it('sessions, turns, tokens by kind and the estimated cost of what the gateway took', async () => {
    expect(synced.code, synced.stdout).toBe(0);
    const rows = await allSessions();
    expect(rows).toHaveLength(4);
    // What was sent is what the dry run said would leave (all of it was accepted).
    expect(dry).toMatchObject({ sessions: 4, sessionsNotFullyPriced: 1 });
    const t = dry.tokens;
    expect(synced.stdout).toMatch(/^Synced 4 session\(s\) in 1 request\(s\)/);
    expect(synced.stdout).toContain(`  sent: 4 session(s), ${dry.turns} turns, ${dry.toolCalls} tool calls`);
    expect(synced.stdout).toContain(
      `  tokens: input ${t.input}, output ${t.output}, cache read ${t.cacheRead}, cache creation ${t.cacheCreation}`,
    );
    expect(synced.stdout).toContain(
      `  estimated cost: $${dry.estimatedCostUsd.toFixed(4)} (1 session(s) with unpriced models not counted)`,
    );
    // Output and cache tokens as the gateway stored them (the two count input differently for Codex).
    const sum = (k: keyof Row['tokens']) => rows.reduce((n, r) => n + r.tokens[k], 0);
    expect([t.output, t.cacheRead, t.cacheCreation]).toEqual([sum('output'), sum('cacheRead'), sum('cacheWrite')]);
    const turns = Number(/sent: 4 session\(s\), (\d+) turns/.exec(synced.stdout)![1]);
    const detailTurns = await Promise.all(
      rows.map(async (r) => (await g.gw.call('GET', `/v1/sessions/${r.traceId}`, as())).body.data.turnCount as number),
    );
    expect(turns).toBe(detailTurns.reduce((a, b) => a + b, 0));

    const json = await home.run(['sync', '--json']);
    expect(json.json).toMatchObject({ sent: 0, sentTotals: { sessions: 0, turns: 0 } });
  });
});

describe('attest costs', { timeout: 300_000 }, () => {
  it('prints its window; when empty, when the newest session was and the flag that shows it', async () => {
    const rows = await allSessions();
    const starts = rows.map((r) => r.startedAt).sort();
    const res = await home.run(['costs']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(
      /^Window: \d{4}-\d\d-\d\dT[\d:.]+Z → \d{4}-\d\d-\d\dT[\d:.]+Z \(the last 30 days; --from and --to change it\)$/m,
    );
    const [from, to] = /^Window: (\S+) → (\S+)/.exec(res.stdout)!.slice(1) as [string, string];
    expect(Date.parse(to) - Date.parse(from)).toBe(30 * 86_400_000);
    expect(res.stdout).toContain('No sessions in this window.');
    expect(res.stdout).toContain(`The newest session started ${starts[3]} (the oldest ${starts[0]})`);
    expect(res.stdout).toContain(`\`attest costs --from ${starts[0]!.slice(0, 10)}\` shows them all`);
    expect(res.stdout).not.toContain('$0.0000');
    const json = await home.run(['costs', '--json']);
    expect(json.json).toMatchObject({ sessions: 0, newestSessionAt: starts[3], oldestSessionAt: starts[0] });
  });

  it('prints tokens by kind beside cost, and unpriced sessions by model instead of $0', async () => {
    const rows = await allSessions();
    const sum = (k: keyof Row['tokens']) => rows.reduce((n, r) => n + r.tokens[k], 0);
    const priced = rows.reduce((n, r) => n + r.costUsd, 0);
    const res = await home.run(['costs', '--from', '2026-01-01', '--to', '2026-12-31']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Window: 2026-01-01T00:00:00.000Z → 2026-12-31T00:00:00.000Z$/m);
    expect(res.stdout).toContain(
      `Spend: $${priced.toFixed(4)} over 4 sessions, plus 1 session unpriced (claude-imaginary-1) not counted`,
    );
    expect(res.stdout).toContain(
      `Tokens: input ${sum('input')}, output ${sum('output')}, cache read ${sum('cacheRead')}, cache write ` +
        `${sum('cacheWrite')}`,
    );
    expect(res.stdout).toMatch(
      /^AGENT\s+MODELS\s+SESSIONS\s+COST\s+INPUT\s+OUTPUT\s+CACHE READ\s+CACHE WRITE\s+CACHE-W 5M\s+CACHE-W 1H$/m,
    );
    const unpricedLine = res.stdout
      .split('\n')
      .find((l) => l.includes('claude-imaginary-1') && l.startsWith('claude-code'));
    expect(unpricedLine).toMatch(
      /^claude-code\s+claude-imaginary-1\s+1\s+unpriced \(claude-imaginary-1\)\s+5\s+9\s+0\s+0\s+0\s+0$/,
    );
    const json = await home.run(['costs', '--from', '2026-01-01', '--to', '2026-12-31', '--json']);
    expect(json.json).toMatchObject({
      sessions: 4,
      unpricedSessions: 1,
      unpricedModels: ['claude-imaginary-1'],
      tokens: {
        input: sum('input'),
        output: sum('output'),
        cacheRead: sum('cacheRead'),
        cacheWrite: sum('cacheWrite'),
      },
    });
    expect(json.json.costUsd).toBeCloseTo(priced, 6);
  });
});

describe('attest sessions and session', { timeout: 300_000 }, () => {
  it('says what the page left out (other repositories, subagents) and the flags that show it', async () => {
    const rows = await allSessions();
    const page = (await g.gw.call('GET', '/v1/sessions', as())).body.data;
    expect(page.repoSelection).toBe('dominant');
    const dominant = page.repo as string;
    const inIt = rows.filter((r) => r.repo === dominant && !r.isSubagent);
    const elsewhere = rows.filter((r) => r.repo !== dominant && !r.isSubagent);
    const otherRepos = [...new Set(elsewhere.map((r) => r.repo))];
    expect(rows.filter((r) => r.isSubagent)).toHaveLength(1);
    expect(otherRepos).toHaveLength(1);
    const res = await home.run(['sessions']);
    expect(res.code, res.stderr).toBe(0);
    const n = inIt.length;
    const where = dominant ? `in ${dominant}` : 'without a repository';
    expect(res.stdout).toContain(
      `1-${n} of ${n} session${n === 1 ? '' : 's'} ${where} (the repository with the most spend).`,
    );
    const m = elsewhere.length;
    expect(res.stdout).toContain(
      `  left out: ${m} session${m === 1 ? '' : 's'} in 1 other repository (${otherRepos[0] || '(none)'} ${m}): ` +
        `--all-repos shows them, --repo OWNER/NAME one of them`,
    );
    expect(res.stdout).toContain('  left out: 1 subagent session: --subagents includes them');

    const all = await home.run(['sessions', '--all-repos', '--subagents', '--limit', '2']);
    expect(all.stdout).toContain('1-2 of 4 sessions in every repository.');
    expect(all.stdout).toContain('  more: --offset 2 (--limit takes up to 100)');
    expect(all.stdout).not.toContain('left out');
    const json = await home.run(['sessions', '--json']);
    expect(json.json).toMatchObject({ total: n, hiddenSessions: m, subagentsLeftOut: 1 });
  });

  it('an unpriced session shows "unpriced (<model>)", not $0.0000', async () => {
    const row = (await allSessions()).find((r) => r.sessionId === UNPRICED_ID)!;
    expect(row.unpricedModels).toEqual(['claude-imaginary-1']);
    const list = await home.run(['sessions', '--repo', '']);
    const line = list.stdout.split('\n').find((l) => l.startsWith(row.traceId))!;
    expect(line).toContain('unpriced (claude-imaginary-1)');
    expect(line).not.toContain('$0.0000');
    const one = await home.run(['session', row.traceId]);
    expect(one.stdout).toMatch(/cost unpriced \(claude-imaginary-1\)$/m);
    expect(one.stdout).toContain('  claude-imaginary-1: 1 turn(s), unpriced (claude-imaginary-1)');
    expect(one.stdout).not.toContain('$0.0000');
  });

  it('`attest session ID | head -1` and a reader that closes at once end quietly with status 0', async () => {
    const row = (await allSessions()).find((r) => r.isSubagent)!;
    const cmd = (reader: string) =>
      new Promise<{ stderr: string }>((resolve, reject) => {
        const proc = spawn(
          'bash',
          ['-c', `${cliCommandLine()} session ${row.traceId} --json | ${reader}; echo "status=\${PIPESTATUS[0]}" >&2`],
          { cwd: ROOT, env: home.env },
        );
        let stderr = '';
        proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        proc.on('error', reject);
        proc.on('close', () => resolve({ stderr }));
      });
    for (const reader of ['head -1', 'true']) {
      const r = await cmd(reader);
      expect(r.stderr, reader).toMatch(/^status=0$/m);
      expect(r.stderr, reader).not.toMatch(/EPIPE|at \w+ \(/);
    }
  });
});

describe('a read with an ingest key', { timeout: 300_000 }, () => {
  it('answers 403 with the credential that can read', async () => {
    const minted = await g.gw.call('POST', '/v1/api-keys', {
      token: g.tenant.loginToken,
      appId: g.tenant.appId,
      body: { name: 'ingest', preset: 'ingest' },
    });
    expect(minted.status).toBe(201);
    const res = await home.run(['sessions'], { ATTEST_API_KEY: minted.body.data.plaintext_key });
    expect(res.code).toBe(4);
    expect(res.stderr).toContain('needs permission sessions.read');
    expect(res.stderr).toContain(
      'This can: a factory API key made with the preset "read-only" or "full-access" (POST /v1/api-keys with a login ' +
        "token), or a member's login token (`attest login --url URL --token olu_...`).",
    );
  });
});

describe('attest login --url without a scheme', { timeout: 300_000 }, () => {
  it('says the URL needs http:// or https://', async () => {
    for (const url of ['localhost:8787', '127.0.0.1:8787', 'ftp://example.com']) {
      const res = await cliHome().run([
        'login',
        '--url',
        url,
        '--api-key',
        g.tenant.factoryKey,
        '--app-id',
        g.tenant.appId,
      ]);
      expect(res.code, url).toBe(1);
      expect(res.stderr, url).toContain('--url needs http:// or https://');
      expect(res.stderr, url).not.toContain('Is the gateway running');
    }
    const hinted = await cliHome().run([
      'login',
      '--url',
      'localhost:8787',
      '--api-key',
      g.tenant.factoryKey,
      '--app-id',
      g.tenant.appId,
    ]);
    expect(hinted.stderr).toContain('(e.g. http://localhost:8787)');
  });
});

describe('attest artifact list and result list', { timeout: 300_000 }, () => {
  it('by pull request and by work item', async () => {
    const item = await g.gw.call('POST', '/v1/work-items', {
      ...as(),
      body: {
        tracker: 'github',
        trackerKey: 'acme/shop#90',
        title: 'checkout',
        stage: 'ready',
        repository: 'acme/shop',
      },
    });
    expect(item.status).toBe(201);
    const number = String(item.body.data.number);
    const declared = await g.gw.call('POST', `/v1/work-items/${number}/pull-requests`, {
      ...as(),
      body: { repository: 'acme/shop', number: 91 },
    });
    expect(declared.status).toBe(201);
    const file = path.join(home.dir, 'proof.txt');
    fs.writeFileSync(file, 'it works');
    const onPr = await home.run([
      'artifact',
      'add',
      file,
      '--repo',
      'acme/shop',
      '--pr',
      '91',
      '--caption',
      'on the PR',
      '--json',
    ]);
    const onItem = await home.run([
      'artifact',
      'add',
      file,
      '--work-item',
      number,
      '--caption',
      'on the item',
      '--json',
    ]);
    expect(onPr.code, onPr.stderr).toBe(0);
    expect(onItem.code, onItem.stderr).toBe(0);
    await home.run([
      'result',
      'emit',
      'unit',
      'fail',
      '--link',
      'https://ci.example/1',
      '--repo',
      'acme/shop',
      '--pr',
      '91',
      '--emitted-at',
      '2026-11-01T10:00:00Z',
    ]);
    await home.run([
      'result',
      'emit',
      'unit',
      'pass',
      '--link',
      'https://ci.example/2',
      '--repo',
      'acme/shop',
      '--pr',
      '91',
      '--emitted-at',
      '2026-11-01T11:00:00Z',
    ]);
    await home.run([
      'result',
      'emit',
      'lint',
      'pass',
      '--link',
      'https://ci.example/3',
      '--repo',
      'acme/shop',
      '--pr',
      '92',
      '--emitted-at',
      '2026-11-01T11:00:00Z',
    ]);

    const byPr = await home.run(['artifact', 'list', '--repo', 'acme/shop', '--pr', '91', '--json']);
    expect(byPr.code, byPr.stderr).toBe(0);
    expect(byPr.json.map((a: { id: string }) => a.id)).toEqual([onPr.json.id]);
    const byItem = await home.run(['artifact', 'list', '--work-item', number, '--json']);
    expect(byItem.json.artifacts.map((a: { id: string }) => a.id).sort()).toEqual(
      [onPr.json.id, onItem.json.id].sort(),
    );
    const table = await home.run(['artifact', 'list', '--work-item', number]);
    expect(table.stdout).toMatch(/^ID\s+KIND\s+FILE\s+BYTES/);
    expect(table.stdout).toContain(`2 artifact(s) of work item ${number}`);

    const checks = await home.run(['result', 'list', '--repo', 'acme/shop', '--pr', '91', '--json']);
    expect(
      checks.json.map((c: { name: string; result: string; history: unknown[] }) => [
        c.name,
        c.result,
        c.history.length,
      ]),
    ).toEqual([['unit', 'pass', 1]]);
    const itemChecks = await home.run(['result', 'list', '--work-item', number]);
    expect(itemChecks.code, itemChecks.stderr).toBe(0);
    expect(itemChecks.stdout).toMatch(
      /^acme\/shop#91\s+unit\s+pass\s+2026-11-01T11:00:00.000Z\s+1\s+https:\/\/ci.example\/2$/m,
    );
    expect(itemChecks.stdout).not.toContain('lint'); // #92 is not declared onto the item
    expect(itemChecks.stdout).toContain(`1 check(s) of work item ${number} across 1 pull request(s)`);

    const neither = await home.run(['result', 'list']);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('--repo owner/repo --pr N, or --work-item ID');
  });
});

describe('attest sync with the gateway down', { timeout: 300_000 }, () => {
  it('a refused connection fails at once (no retries; 5xx, 429, no answer retried: cli/sync.test.ts)', async () => {
    const h = cliHome();
    await loginWithFactoryKey(h, g);
    writeCodexRollout(h, '0199a1b2-c3d4-7e5f-8a9b-000000000009');
    // A port nothing listens on.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await h.run(['sync'], { ATTEST_URL: `http://127.0.0.1:${port}`, ATTEST_RETRY_BASE_MS: '60000' });
    // With a minute between attempts, a retry would hang the test: one attempt, then the message.
    expect(refused.code, refused.stdout + refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^sync: 1 session\(s\) to send$/m);
    expect(refused.stderr).not.toMatch(/retrying/);
    expect(refused.stderr).toContain(
      `Sync stopped: Nothing is listening at http://127.0.0.1:${port} (connection refused). Is the gateway running?`,
    );

    const ok = await h.run(['sync', '--json']);
    expect(ok.json).toMatchObject({ sent: 1 });
  });
});
