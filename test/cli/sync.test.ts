// attest login / whoami / sync, spawned as a user runs them, against a real gateway on a local port.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript } from '../../src/capture/index.js';
import { cliCommandLine } from '../helpers/cli-main.js';
import {
  cliHome,
  fileMode,
  listeningGateway,
  loginWithFactoryKey,
  placeClaudeFixture,
  scriptedServer,
  writeCodexRollout,
  writeSmallTranscript,
  FIXTURE_RAW,
  ROOT,
  type ListeningGateway,
} from './cli-helpers.js';

let g: ListeningGateway;
beforeAll(async () => {
  g = await listeningGateway();
});
afterAll(async () => {
  await g.close();
});

async function storedSessions(includeSubagents = true) {
  const res = await g.gw.call(
    'GET',
    `/v1/sessions?repoScope=all&limit=100${includeSubagents ? '&includeSubagents=1' : ''}`,
    { token: g.tenant.factoryKey, appId: g.tenant.appId },
  );
  expect(res.status).toBe(200);
  return res.body.data as {
    total: number;
    sessions: { traceId: string; sessionId: string; turnCount: number; agentType: string; isSubagent: boolean }[];
  };
}

/** GET /v1/sessions/{traceId} of the session the CLI sent with this AgentSession id. */
async function sessionDetail(sessionId: string) {
  const trace = (await storedSessions()).sessions.find((s) => s.sessionId === sessionId)?.traceId;
  expect(trace, `session ${sessionId} is listed`).toBeTruthy();
  const res = await g.gw.call('GET', `/v1/sessions/${trace}`, { token: g.tenant.factoryKey, appId: g.tenant.appId });
  expect(res.status).toBe(200);
  return res.body.data as { turnCount: number; captureTier: string };
}

describe('attest login and whoami', { timeout: 300_000 }, () => {
  it('stores a factory key profile with mode 0600 and whoami shows it; env overrides it', async () => {
    const home = cliHome();
    const login = await home.run([
      'login',
      '--url',
      g.url,
      '--api-key',
      g.tenant.factoryKey,
      '--app-id',
      g.tenant.appId,
      '--json',
    ]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.json).toMatchObject({ url: g.url, credential: 'factory API key', appId: g.tenant.appId });
    expect(fileMode(home.profileFile)).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(home.profileFile, 'utf8'))).toEqual({
      url: g.url,
      token: g.tenant.factoryKey,
      appId: g.tenant.appId,
    });

    const who = await home.run(['whoami', '--json']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.json).toMatchObject({
      url: g.url,
      credential: 'factory API key',
      appId: g.tenant.appId,
      source: { url: 'profile', token: 'profile', appId: 'profile' },
    });
    expect(who.stdout).not.toContain(g.tenant.factoryKey);

    const overridden = await home.run(['whoami', '--json'], { ATTEST_APP_ID: '00000000-0000-4000-8000-000000000000' });
    // The key does not belong to that factory: the gateway answers 401 and the CLI says so.
    expect(overridden.code).toBe(4);
    expect(overridden.stderr).toMatch(/refused the credential \(401 unauthorized\)/);
  });

  it('a login token picks its only factory; a bad credential is refused with a clear message', async () => {
    const home = cliHome();
    const login = await home.run(['login', '--url', g.url, '--token', g.tenant.loginToken]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`factory ${g.tenant.appId}`);
    const who = await home.run(['whoami', '--json']);
    expect(who.json.factory).toMatchObject({ id: g.tenant.appId });

    const bad = await cliHome().run([
      'login',
      '--url',
      g.url,
      '--api-key',
      `sk_outerlayer_${'a'.repeat(42)}`,
      '--app-id',
      g.tenant.appId,
    ]);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/refused the credential/);
    const none = await cliHome().run(['whoami']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Not logged in/);
  });
});

describe('attest sync', { timeout: 300_000 }, () => {
  it('dry run prints what would leave and sends nothing; sync sends it; a second sends only grown files', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    const main = placeClaudeFixture(home, 's05-large-0c76305d.jsonl');
    // Subagent layout of Claude Code: <project>/<session>/subagents/agent-<id>.jsonl
    placeClaudeFixture(
      home,
      's01-small-ee5e9b07.jsonl',
      'proj-a/6c106dc6-97d0-4c43-854e-18d33b520e2d/subagents',
      'agent-aab574376abcb02f3.jsonl',
    );
    writeCodexRollout(home, '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    const before = (await storedSessions()).total;

    const dry = await home.run(['sync', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json).toMatchObject({ dryRun: true, tier: 'redacted', sessions: 3, filesFound: 3, batches: 1 });
    const s05 = parseClaudeCodeTranscript(fs.readFileSync(`${FIXTURE_RAW}/s05-large-0c76305d.jsonl`, 'utf8'));
    const sent05 = dry.json.requests[0].body.sessions.find((s: { id: string }) => s.id === s05.id);
    expect(sent05.totals).toMatchObject(s05.totals);
    expect(JSON.stringify(dry.json.requests)).not.toMatch(/§str:/); // no message text at the default tier
    expect(dry.json.tokens.output).toBe(90916 + 1338 + 50);
    expect(dry.json.estimatedCostUsd).toBeGreaterThan(0);
    expect((await storedSessions()).total).toBe(before);

    const human = await home.run(['sync', '--dry-run']);
    expect(human.stdout).toMatch(/Dry run: nothing was sent\. At tier "redacted"/);
    expect(human.stdout).toMatch(/3 session\(s\) from 3 new or grown file\(s\)/);
    expect(human.stdout).toMatch(/tokens: input \d+, output 92304, cache read \d+, cache creation \d+/);

    const sync = await home.run(['sync', '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.json).toMatchObject({ sent: 3, rejected: [], requests: 1, tenantTier: 'paid' });
    const stored = await storedSessions();
    expect(stored.total).toBe(before + 3);
    const detail = await sessionDetail(s05.id);
    expect(detail.turnCount).toBe(s05.turns.length);
    expect(detail.captureTier).toBe('redacted');
    expect(stored.sessions.find((s) => s.agentType === 'codex')).toBeTruthy();
    expect(stored.sessions.filter((s) => s.isSubagent)).toHaveLength(1);

    const again = await home.run(['sync', '--json']);
    expect(again.json).toMatchObject({ sent: 0, sessions: 0, filesChanged: 0, requests: 0 });

    // The session grows: only that file is sent again, and the gateway stores the longer version.
    const extra = {
      type: 'user',
      sessionId: s05.id,
      uuid: 'grown-1',
      timestamp: '2026-06-12T16:00:00.000Z',
      message: { role: 'user', content: 'one more thing' },
    };
    fs.appendFileSync(main, `${JSON.stringify(extra)}\n`);
    const grown = await home.run(['sync', '--json']);
    expect(grown.json).toMatchObject({ sent: 1, filesChanged: 1 });
    expect((await sessionDetail(s05.id)).turnCount).toBe(s05.turns.length + 1);
  });

  it('batches within the server limit of 50 sessions a request', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    for (let i = 0; i < 53; i++)
      writeSmallTranscript(home, `5e55${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`);
    const res = await home.run(['sync', '--json', '--tier', 'metrics']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ sent: 53, requests: 2, batches: 2, tier: 'metrics' });
    expect((await sessionDetail('5e550052-0000-4000-8000-000000000000')).captureTier).toBe('metrics');
  });

  it('401 and 403 stop with a clear message and exit 4', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    placeClaudeFixture(home, 's09-small-eabfac43.jsonl');
    const revoked = await home.run(['sync'], { ATTEST_API_KEY: `sk_outerlayer_${'b'.repeat(42)}` });
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toMatch(/Sync stopped: the gateway refused the credential \(401 unauthorized\)/);

    const minted = await g.gw.call('POST', '/v1/api-keys', {
      token: g.tenant.loginToken,
      appId: g.tenant.appId,
      body: { name: 'read-only-cli', permissions: ['sessions.read'] },
    });
    expect(minted.status).toBe(201);
    const denied = await home.run(['sync'], { ATTEST_API_KEY: minted.body.data.plaintext_key });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toMatch(/may not write sessions \(403 forbidden, needs sessions\.write\)/);
    // Nothing was marked as sent: a later sync with a good key sends it.
    const ok = await home.run(['sync', '--json']);
    expect(ok.json).toMatchObject({ sent: 1 });
  });

  it('gateway down: retries with backoff, then stops with exit 3 and keeps the files for next time', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    placeClaudeFixture(home, 's09-small-eabfac43.jsonl');
    const down = await home.run(['sync'], { ATTEST_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(3);
    // Not a terminal: plain progress lines instead of a bar.
    expect(down.stderr).toMatch(/^sync: 1 session\(s\) to send$/m);
    expect(down.stderr).toMatch(/no answer; retrying in/);
    expect(down.stderr).toMatch(
      /Sync stopped: Cannot reach the gateway at http:\/\/127\.0\.0\.1:9.*gave up after 6 attempts/,
    );
    const ok = await home.run(['sync', '--json']);
    expect(ok.json).toMatchObject({ sent: 1 });
  });

  it('429 waits Retry-After, 5xx retries, 413 splits the batch (scripted stand-in for the real route)', async () => {
    const home = cliHome();
    for (let i = 0; i < 3; i++) writeSmallTranscript(home, `4130000${i}-0000-4000-8000-000000000000`);
    const server = await scriptedServer((req, n) => {
      if (n === 1)
        return {
          status: 429,
          headers: { 'retry-after': '1' },
          body: { error: { code: 'rate_limited', message: 'slow down' } },
        };
      if (n === 2) return { status: 503, body: { error: { code: 'store_unavailable', message: 'db down' } } };
      const sessions = (req.body as { sessions: { id: string }[] }).sessions;
      if (sessions.length > 1)
        return { status: 413, body: { error: { code: 'payload_too_large', message: 'too big', limit: 1000 } } };
      return {
        status: 200,
        body: {
          data: {
            accepted: sessions.map((s) => s.id),
            rejected: [],
            blobsStored: 0,
            rejectedBlobs: [],
            tenantTier: 'free',
          },
        },
      };
    });
    try {
      const started = Date.now();
      const res = await home.run(['sync', '--json'], {
        ATTEST_URL: server.url,
        ATTEST_API_KEY: g.tenant.factoryKey,
        ATTEST_APP_ID: g.tenant.appId,
      });
      expect(res.code, res.stderr).toBe(0);
      expect(res.json).toMatchObject({ sent: 3, tenantTier: 'free' });
      const sizes = server.requests.map((r) => (r.body as { sessions: unknown[] }).sessions.length);
      // 429, 503, 413 on 3, then 2 → 413 → 1 + 1, then 1.
      expect(sizes).toEqual([3, 3, 3, 2, 1, 1, 1]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // waited the Retry-After second
      for (const r of server.requests) {
        expect(r.url).toBe('/v1/agents/sync');
        expect(r.headers.authorization).toBe(`Bearer ${g.tenant.factoryKey}`);
        expect(r.headers['x-outerlayer-app-id']).toBe(g.tenant.appId);
        expect(r.headers['x-outerlayer-runner-version']).toMatch(/^\d+\.\d+\.\d+/);
      }
    } finally {
      await server.close();
    }
  });

  it('a session too large even alone is given up and reported (POST /v1/agents/sync-failures)', async () => {
    const home = cliHome();
    const id = '41300010-0000-4000-8000-000000000000';
    writeSmallTranscript(home, id);
    const server = await scriptedServer((req) =>
      req.url === '/v1/agents/sync-failures'
        ? { status: 200, body: { data: { reported: 1 } } }
        : { status: 413, body: { error: { code: 'payload_too_large', message: 'too big', limit: 1000 } } },
    );
    try {
      const res = await home.run(['sync', '--json'], {
        ATTEST_URL: server.url,
        ATTEST_API_KEY: g.tenant.factoryKey,
        ATTEST_APP_ID: g.tenant.appId,
      });
      const reason = 'too large for the gateway even alone (413, limit 1000 bytes)';
      expect(res.code, res.stderr).toBe(2);
      expect(res.json).toMatchObject({ sent: 0, rejected: [{ id, reason }] });
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        'POST /v1/agents/sync',
        'POST /v1/agents/sync-failures',
      ]);
      expect(server.requests[1]!.body).toEqual({ failures: [{ sessionId: id, reason }] });
      expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${g.tenant.factoryKey}`);
    } finally {
      await server.close();
    }
  });

  it('at the full tier the pasted images go along as blobs; below it they stay on the machine', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const sha = crypto.createHash('sha256').update(png).digest('hex');
    const sessionId = 'a1a1a1a1-0000-4000-8000-000000000001';
    const base = { sessionId, version: '2.1.200', cwd: '/nonexistent/app', isSidechain: false };
    const lines = [
      {
        ...base,
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-07-01T10:00:00.000Z',
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'what is wrong here?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
          ],
        },
      },
      {
        ...base,
        type: 'assistant',
        uuid: 'a1',
        timestamp: '2026-07-01T10:00:04.000Z',
        message: {
          id: 'msg_img',
          model: 'claude-opus-4-8',
          role: 'assistant',
          content: [{ type: 'text', text: 'The button is cut off.' }],
          usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      },
    ];
    fs.mkdirSync(`${home.claudeDir}/proj-img`, { recursive: true });
    fs.writeFileSync(
      `${home.claudeDir}/proj-img/${sessionId}.jsonl`,
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );

    const redacted = await home.run(['sync', '--dry-run', '--json']);
    expect(redacted.json.requests[0].body.blobs).toBeUndefined();
    expect(JSON.stringify(redacted.json.requests)).not.toContain(png.toString('base64'));

    const full = await home.run(['sync', '--tier', 'full', '--json']);
    expect(full.code, full.stderr).toBe(0);
    expect(full.json).toMatchObject({ sent: 1, images: 1, rejectedImages: 0, tier: 'full' });
    const blob = await fetch(`${g.url}/v1/agents/blob/${sha}`, {
      headers: { authorization: `Bearer ${g.tenant.factoryKey}`, 'x-outerlayer-app-id': g.tenant.appId },
    });
    expect(blob.status).toBe(200);
    expect(blob.headers.get('content-type')).toMatch(/^image\/png/);
    expect(Buffer.from(await blob.arrayBuffer()).equals(png)).toBe(true);
  });

  // `script` (util-linux) gives the CLI a real pseudo-terminal, as when a person runs it.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('on a terminal it draws a progress bar', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    placeClaudeFixture(home, 's22-small-a1bb6e6d.jsonl');
    const cmd = `${cliCommandLine()} sync`;
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const proc = spawn('script', ['-qec', cmd, '/dev/null'], { cwd: ROOT, env: home.env });
      let text = '';
      proc.stdout.on('data', (b: Buffer) => (text += b.toString()));
      proc.on('close', (code) => resolve({ code, text }));
    });
    expect(out.code, out.text).toBe(0);
    expect(out.text).toMatch(/sync \[[█░]+\] 1\/1 sessions/);
    expect(out.text).not.toMatch(/^sync: 1 session\(s\) to send/m);
    expect(out.text).toMatch(/Synced 1 session\(s\) in 1 request\(s\) at tier redacted/);
  });

  it('--since skips older sessions; a bad tier or date is refused', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    placeClaudeFixture(home, 's09-small-eabfac43.jsonl');
    const future = await home.run(['sync', '--dry-run', '--json', '--since', '2999-01-01']);
    expect(future.json).toMatchObject({ sessions: 0 });
    const badTier = await home.run(['sync', '--tier', 'everything']);
    expect(badTier.code).toBe(1);
    expect(badTier.stderr).toMatch(/--tier must be metrics, redacted or full/);
    const badDate = await home.run(['sync', '--since', 'yesterdayish']);
    expect(badDate.code).toBe(1);

    // A transcript without a turn is skipped, and not read again until it changes.
    fs.writeFileSync(
      `${home.claudeDir}/proj-a/empty.jsonl`,
      `${JSON.stringify({ type: 'mode', mode: 'normal', sessionId: 'e0000000-0000-4000-8000-000000000000' })}\n`,
    );
    const first = await home.run(['sync', '--json']);
    expect(first.json).toMatchObject({
      sent: 1,
      filesChanged: 2,
      skipped: [{ path: `${home.claudeDir}/proj-a/empty.jsonl`, reason: 'no turns' }],
    });
    const second = await home.run(['sync', '--json']);
    expect(second.json).toMatchObject({ sent: 0, filesChanged: 0, skipped: [] });
  });
});
