// attest artifact add, result emit, work list/claim/renew/release/pr, host heartbeat, sessions/session/costs
// and mcp install, spawned as a user runs them against a real gateway on a local port.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliHome,
  fileMode,
  listeningGateway,
  loginWithFactoryKey,
  placeClaudeFixture,
  type CliHome,
  type ListeningGateway,
} from './cli-helpers.js';

let g: ListeningGateway;
let home: CliHome;
beforeAll(async () => {
  g = await listeningGateway();
  home = cliHome();
  await loginWithFactoryKey(home, g);
});
afterAll(async () => {
  await g.close();
});

const as = () => ({ token: g.tenant.factoryKey, appId: g.tenant.appId });

describe('attest artifact add and result emit', { timeout: 300_000 }, () => {
  it('uploads a file as evidence for a pull request; the same command again is idempotent', async () => {
    const file = path.join(home.dir, 'checkout.png');
    fs.writeFileSync(file, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    const args = [
      'artifact',
      'add',
      file,
      '--repo',
      'acme/shop',
      '--pr',
      '42',
      '--criterion',
      'AC-1',
      '--caption',
      'checkout works',
      '--json',
    ];
    const first = await home.run(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      filename: 'checkout.png',
      mediaType: 'image/png',
      kind: 'screenshot',
      bytes: 16,
      criterionId: 'AC-1',
      repository: 'acme/shop',
      prNumber: 42,
      caption: 'checkout works',
    });
    const again = await home.run(args);
    expect(again.json.id).toBe(first.json.id);
    const listed = await g.gw.call('GET', '/v1/artifacts?repository=acme/shop&prNumber=42', as());
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([first.json.id]);
    const content = await g.gw.call('GET', `/v1/artifacts/${first.json.id}/content`, as());
    expect(Buffer.from(content.text, 'latin1').length).toBe(16);

    const human = await home.run(['artifact', 'add', file, '--repo', 'acme/shop', '--pr', '43']);
    expect(human.stdout).toMatch(/^Artifact [0-9a-f-]{36} \(screenshot, 16 bytes\): http/);
  });

  it('refuses what it cannot send, before sending', async () => {
    const noAnchor = await home.run(['artifact', 'add', path.join(home.dir, 'x.txt')]);
    expect(noAnchor.code).toBe(1);
    expect(noAnchor.stderr).toMatch(/--repo owner\/repo --pr N and\/or --work-item/);
    const missing = await home.run([
      'artifact',
      'add',
      path.join(home.dir, 'missing.txt'),
      '--repo',
      'acme/shop',
      '--pr',
      '1',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read/);
    const badRepo = await home.run([
      'result',
      'emit',
      'unit',
      'pass',
      '--link',
      'https://ci.example/1',
      '--repo',
      'shop',
      '--pr',
      '1',
    ]);
    expect(badRepo.stderr).toMatch(/--repo must be owner\/repo/);
    const badResult = await home.run([
      'result',
      'emit',
      'unit',
      'maybe',
      '--link',
      'https://ci.example/1',
      '--repo',
      'acme/shop',
      '--pr',
      '1',
    ]);
    expect(badResult.stderr).toMatch(/pass or fail/);
  });

  it('records a check result with its run URL; with --emit-id and --emitted-at a repeat is one record', async () => {
    const args = [
      'result',
      'emit',
      'unit-tests',
      'fail',
      '--link',
      'https://ci.example/runs/7',
      '--repo',
      'acme/shop',
      '--pr',
      '42',
      '--json',
    ];
    const first = await home.run(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      name: 'unit-tests',
      result: 'fail',
      link: 'https://ci.example/runs/7',
      repository: 'acme/shop',
      prNumber: 42,
    });
    const later = await home.run([
      'result',
      'emit',
      'unit-tests',
      'pass',
      '--link',
      'https://ci.example/runs/8',
      '--repo',
      'acme/shop',
      '--pr',
      '42',
      '--json',
    ]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.json.clientEmitId).not.toBe(first.json.clientEmitId);
    const checks = await g.gw.call('GET', '/v1/emitted-results?repository=acme/shop&prNumber=42', as());
    expect(checks.status).toBe(200);
    const check = checks.body.data.find((c: { name: string }) => c.name === 'unit-tests');
    expect(check).toMatchObject({ result: 'pass', link: 'https://ci.example/runs/8' });
    expect(check.history.map((h: { link: string }) => h.link)).toEqual(['https://ci.example/runs/7']);

    const pinned = [
      'result',
      'emit',
      'lint',
      'pass',
      '--link',
      'https://ci.example/runs/9',
      '--repo',
      'acme/shop',
      '--pr',
      '42',
      '--emit-id',
      'job-9',
      '--emitted-at',
      '2026-11-01T11:00:00Z',
      '--json',
    ];
    const a = await home.run(pinned);
    const b = await home.run(pinned);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.json.id).toBe(a.json.id);
    expect(a.json.clientEmitId).toBe('job-9');
  });
});

describe('attest work', { timeout: 300_000 }, () => {
  it('lists startable first, claims (item key 0600, never printed), renews, reports expiry, releases', async () => {
    for (const [key, stage] of [
      ['acme/shop#1', 'in_review'],
      ['acme/shop#2', 'ready'],
    ] as const) {
      const res = await g.gw.call('POST', '/v1/work-items', {
        ...as(),
        body: { tracker: 'github', trackerKey: key, title: `item ${key}`, stage, repository: 'acme/shop' },
      });
      expect(res.status).toBe(201);
    }
    const list = await home.run(['work', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.map((i: { trackerKey: string; startable: boolean }) => [i.trackerKey, i.startable])).toEqual([
      ['acme/shop#2', true],
      ['acme/shop#1', false],
    ]);
    const number = String(list.json[0].number);

    const claim = await home.run(['work', 'claim', number, '--branch', 'feat/two', '--ttl', '600', '--json']);
    expect(claim.code, claim.stderr).toBe(0);
    expect(claim.json).toMatchObject({ number: Number(number), branch: 'feat/two' });
    expect(claim.stdout).not.toMatch(/oli_/);
    const profile = JSON.parse(fs.readFileSync(home.profileFile, 'utf8'));
    expect(fileMode(home.profileFile)).toBe(0o600);
    const entry = Object.values(profile.itemKeys)[0] as { itemKey: string; workItemId: string };
    expect(entry.itemKey).toMatch(/^oli_/);

    // Someone else (another profile) cannot claim it while the lease lives.
    const other = cliHome();
    await loginWithFactoryKey(other, g);
    const taken = await other.run(['work', 'claim', number, '--branch', 'feat/mine']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/409 work_item_claimed/);

    const table = await home.run(['work', 'list']);
    expect(table.stdout).toMatch(/feat\/two until/);

    g.gw.clock.advance(300_000);
    const renewed = await home.run(['work', 'renew', number, '--json']);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(Date.parse(renewed.json.expiresAt)).toBe(g.gw.clock.now() + 600_000);

    // The lease runs out: renew and pr say so and how to claim again (no terminal, so no prompt).
    g.gw.clock.advance(601_000);
    const expired = await home.run(['work', 'renew', number]);
    expect(expired.code).toBe(5);
    expect(expired.stderr).toMatch(
      new RegExp(
        `The claim on ${number} has expired \\(410 claim_expired\\).*attest work claim ${number} --branch feat/two`,
      ),
    );
    const afterExpiry = JSON.parse(fs.readFileSync(home.profileFile, 'utf8'));
    expect(afterExpiry.itemKeys).toEqual({});

    const reclaimed = await home.run(['work', 'claim', number, '--branch', 'feat/two']);
    expect(reclaimed.code, reclaimed.stderr).toBe(0);
    const bodyFile = path.join(home.dir, 'pr.md');
    fs.writeFileSync(bodyFile, 'Fixes the cart.');
    g.gw.clock.advance(3_601_000);
    const pr = await home.run(['work', 'pr', number, '--title', 'Fix the cart', '--body-file', bodyFile]);
    expect(pr.code).toBe(5);
    expect(pr.stderr).toMatch(/has expired \(410 claim_expired\)/);

    const again = await home.run(['work', 'claim', number, '--branch', 'feat/two']);
    expect(again.code, again.stderr).toBe(0);
    const release = await home.run(['work', 'release', number]);
    expect(release.code, release.stderr).toBe(0);
    const item = await g.gw.call('GET', `/v1/work-items/${number}`, as());
    expect(item.body.data.claim).toBeNull();
    expect(JSON.parse(fs.readFileSync(home.profileFile, 'utf8')).itemKeys).toEqual({});
    const noKey = await home.run(['work', 'renew', number]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/No item key/);
  });
});

describe('attest host heartbeat', { timeout: 300_000 }, () => {
  it('registers this host; the gateway lists it online', async () => {
    const res = await home.run([
      'host',
      'heartbeat',
      '--host-id',
      'ci-runner-1',
      '--name',
      'runner one',
      '--capacity',
      '4',
      '--active-jobs',
      '1',
      '--label',
      'linux',
      'gpu',
      '--json',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({
      hostId: 'ci-runner-1',
      name: 'runner one',
      capacity: 4,
      activeJobs: 1,
      labels: ['linux', 'gpu'],
      status: 'online',
    });
    const hosts = await g.gw.call('GET', '/v1/hosts', as());
    expect(hosts.body.data).toEqual([expect.objectContaining({ hostId: 'ci-runner-1', status: 'online' })]);
    const bad = await home.run(['host', 'heartbeat', '--every', 'often']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not an interval/);
  });
});

describe('attest sessions, session, costs', { timeout: 300_000 }, () => {
  it('reads back what sync sent, as tables and as JSON', async () => {
    placeClaudeFixture(home, 's09-small-eabfac43.jsonl');
    placeClaudeFixture(home, 's12-small-36cbdb7b.jsonl');
    const sync = await home.run(['sync', '--json']);
    expect(sync.json).toMatchObject({ sent: 2 });

    const list = await home.run(['sessions', '--all-repos', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.total).toBe(2);
    const ids = list.json.sessions.map((s: { sessionId: string }) => s.sessionId).sort();
    expect(ids).toEqual(['8aedba05-2b6c-4dd0-b3c5-0de10ff3a8ec', 'a9759395-1a09-452b-90fb-646843d51bb0'].sort());
    const table = await home.run(['sessions', '--all-repos']);
    expect(table.stdout).toMatch(/^TRACE ID\s+STARTED\s+AGENT/);
    expect(table.stdout).toMatch(/1-2 of 2 sessions in every repository/);

    const traceId = list.json.sessions[0].traceId as string;
    const one = await home.run(['session', traceId, '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json.traceId).toBe(traceId);
    const human = await home.run(['session', traceId]);
    expect(human.stdout).toMatch(new RegExp(`^Session ${traceId}`));
    expect(human.stdout).toMatch(/IN\/OUT\/CACHE-R\/CACHE-W/);
    const missing = await home.run(['session', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/404 session_not_found/);

    const costs = await home.run(['costs', '--from', '2026-01-01', '--to', '2026-12-31', '--json']);
    expect(costs.code, costs.stderr).toBe(0);
    expect(costs.json.sessions).toBe(2);
    const listedCost = list.json.sessions.reduce((n: number, s: { costUsd: number }) => n + s.costUsd, 0);
    expect(costs.json.costUsd).toBeCloseTo(listedCost, 6);
    expect(costs.json.costUsd).toBeGreaterThan(0);
    // Cache writes by TTL: the sessions' one-hour and five-minute parts, summed as the list states them.
    const listed1h = list.json.sessions.reduce(
      (n: number, s: { tokens: { cacheWrite1h: number } }) => n + s.tokens.cacheWrite1h,
      0,
    );
    expect(listed1h).toBeGreaterThan(0);
    expect(costs.json.byAgentAndModel.reduce((n: number, r: { cacheWrite1h: number }) => n + r.cacheWrite1h, 0)).toBe(
      listed1h,
    );
    const human2 = await home.run(['session', traceId]);
    expect(human2.stdout).toMatch(/cache writes 5m \d+ \/ 1h \d+/);
    const table2 = await home.run(['costs', '--from', '2026-01-01', '--to', '2026-12-31']);
    expect(table2.stdout).toMatch(/CACHE-W 5M\s+CACHE-W 1H/);
  });
});

describe('attest mcp install', { timeout: 300_000 }, () => {
  it("writes the gateway's MCP entry to .mcp.json, keeping other servers, no credential unless asked", async () => {
    const project = path.join(home.dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'x' } } }));
    const res = await home.run(['mcp', 'install', '--dir', project]);
    expect(res.code, res.stderr).toBe(0);
    const written = JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'));
    expect(written.mcpServers.other).toEqual({ command: 'x' });
    expect(written.mcpServers.attest).toMatchObject({
      type: 'http',
      url: `${g.url}/v1/mcp`,
      headers: { Authorization: 'Bearer ${ATTEST_API_KEY}', 'X-Outerlayer-App-Id': g.tenant.appId },
    });
    expect(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).not.toContain(g.tenant.factoryKey);

    const inline = await home.run(['mcp', 'install', '--dir', project, '--inline-token']);
    expect(inline.code, inline.stderr).toBe(0);
    expect(
      JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8')).mcpServers.attest.headers.Authorization,
    ).toBe(`Bearer ${g.tenant.factoryKey}`);
    expect(fileMode(path.join(project, '.mcp.json'))).toBe(0o600);
  });
});
