// Driving the attest CLI as a user does: a spawned `node <built main.js> ...` process with its own
// HOME, XDG config/state dirs and transcript roots, against a real gateway listening on a local port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { startGateway, createTenant, type TestGateway, type Tenant } from '../helpers/gateway.js';
import { cliArgv } from '../helpers/cli-main.js';
import { testTempDir } from '../helpers/tmp.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface CliHome {
  dir: string;
  env: Record<string, string>;
  claudeDir: string;
  codexDir: string;
  profileFile: string;
  run(args: string[], extraEnv?: Record<string, string>): Promise<CliResult>;
}

/** A fresh user: empty home, config and state dirs, empty transcript roots. */
const homes: string[] = [];
// A home holds a profile with a credential: removed when the test file ends.
afterAll(() => {
  for (const dir of homes.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function cliHome(): CliHome {
  const dir = testTempDir('attest-cli-home-');
  homes.push(dir);
  const claudeDir = path.join(dir, 'claude-projects');
  const codexDir = path.join(dir, 'codex-sessions');
  fs.mkdirSync(claudeDir, { recursive: true });
  fs.mkdirSync(codexDir, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    ATTEST_CLAUDE_DIR: claudeDir,
    ATTEST_CODEX_DIR: codexDir,
    // Backoff between retries in tests: 10 ms, 20 ms, ... instead of 0.5 s, 1 s, ...
    ATTEST_RETRY_BASE_MS: '10',
  };
  return {
    dir,
    env,
    claudeDir,
    codexDir,
    profileFile: path.join(dir, 'config', 'attest', 'profile.json'),
    run: (args, extraEnv = {}) => runCli(args, { ...env, ...extraEnv }),
  };
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...cliArgv(), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

export interface ListeningGateway {
  gw: TestGateway;
  url: string;
  tenant: Tenant;
  close(): Promise<void>;
}

/** A real gateway on a temp store, listening on 127.0.0.1, with one tenant. */
export async function listeningGateway(): Promise<ListeningGateway> {
  const gw = await startGateway();
  const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
  const tenant = await createTenant(gw, { plan: 'paid' });
  return { gw, url: address, tenant, close: () => gw.close() };
}

/** Logs a CLI home in with the tenant's full-access factory key. */
export async function loginWithFactoryKey(home: CliHome, g: ListeningGateway): Promise<void> {
  const res = await home.run(['login', '--url', g.url, '--api-key', g.tenant.factoryKey, '--app-id', g.tenant.appId]);
  if (res.code !== 0) throw new Error(`login failed: ${res.stderr}`);
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A stand-in for the gateway for answers the real one cannot be made to give on demand (a 429 or 503 on
 * the sync route, a 413 for a batch the CLI already keeps under the real limit). `answer` decides per request.
 */
export async function scriptedServer(
  answer: (req: RecordedRequest, n: number) => { status: number; body: unknown; headers?: Record<string, string> },
): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(rec);
      const out = answer(rec, requests.length);
      res.writeHead(out.status, { 'content-type': 'application/json', ...(out.headers ?? {}) });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export const FIXTURE_RAW = path.resolve(ROOT, 'test/fixtures/outerlayer-session-schema/raw');

/** Puts a raw fixture where Claude Code would write it: <claude>/<project>/<file>. */
export function placeClaudeFixture(home: CliHome, fixture: string, project = 'proj-a', as?: string): string {
  const dir = path.join(home.claudeDir, project);
  fs.mkdirSync(dir, { recursive: true });
  const dest = path.join(dir, as ?? fixture);
  fs.copyFileSync(path.join(FIXTURE_RAW, fixture), dest);
  return dest;
}

/** A small Claude Code transcript with its own session id (for tests that need many sessions). */
export function writeSmallTranscript(home: CliHome, sessionId: string, project = 'proj-many'): string {
  const text = fs.readFileSync(path.join(FIXTURE_RAW, 's09-small-eabfac43.jsonl'), 'utf8');
  const original = /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1]!;
  const dir = path.join(home.claudeDir, project);
  fs.mkdirSync(dir, { recursive: true });
  const dest = path.join(dir, `${sessionId}.jsonl`);
  fs.writeFileSync(dest, text.split(original).join(sessionId));
  return dest;
}

/** A Codex rollout where Codex writes it: <codex>/YYYY/MM/DD/rollout-....jsonl */
export function writeCodexRollout(home: CliHome, id: string): string {
  const dir = path.join(home.codexDir, '2026', '10', '01');
  fs.mkdirSync(dir, { recursive: true });
  const ts = (s: number) => new Date(Date.parse('2026-10-01T09:00:00.000Z') + s * 1000).toISOString();
  const lines = [
    {
      timestamp: ts(0),
      type: 'session_meta',
      payload: {
        id,
        timestamp: ts(0),
        cwd: '/nonexistent/shop',
        originator: 'codex_cli_rs',
        cli_version: '0.46.0',
        git: { branch: 'main', repository_url: 'https://github.com/acme/shop.git' },
      },
    },
    { timestamp: ts(1), type: 'turn_context', payload: { cwd: '/nonexistent/shop', model: 'gpt-5-codex' } },
    { timestamp: ts(2), type: 'event_msg', payload: { type: 'user_message', message: 'fix it' } },
    {
      timestamp: ts(3),
      type: 'response_item',
      payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
    },
    {
      timestamp: ts(4),
      type: 'response_item',
      payload: { type: 'function_call_output', call_id: 'c1', output: '{"output":"a","metadata":{"exit_code":0}}' },
    },
    {
      timestamp: ts(5),
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: {
          last_token_usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 50, total_tokens: 1050 },
          total_token_usage: { input_tokens: 1000, cached_input_tokens: 800, output_tokens: 50, total_tokens: 1050 },
        },
      },
    },
  ];
  const dest = path.join(dir, `rollout-2026-10-01T09-00-00-${id}.jsonl`);
  fs.writeFileSync(dest, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return dest;
}

export function fileMode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}
