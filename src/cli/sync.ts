// `attest sync`: find agent sessions on this machine, send the new and grown ones to POST /v1/agents/sync.
//
// Discovery: Claude Code transcripts under ~/.claude/projects (every *.jsonl, subagent files included) and
// Codex rollouts under ~/.codex/sessions (rollout-*.jsonl); ATTEST_CLAUDE_DIR / ATTEST_CODEX_DIR move the roots.
// A watermark file (XDG state dir) remembers each file's size and mtime per gateway+factory, so a file is
// sent again only when it grew or changed, or when the tier changed. Batches stay within the server's limits
// (≤ 50 sessions, ≤ 8 MiB); a session too large for one request goes in `chunk` parts (the gateway merges
// them by turn index). Errors per spec part 7: 429 waits Retry-After, 5xx and no answer retry with backoff,
// 413 splits the batch, 401/403 stop.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Command } from 'commander';
import { captureSession } from '../capture/facts.js';
import {
  claudeImageBlobs,
  normalizeRepoUrl,
  isCaptureTier,
  type AgentSessionV1,
  type CaptureTier,
  type ImageBlob,
} from '../capture/index.js';
import { ApiClientError, type AttestClient, type SyncBody, type SyncResult } from '../client/index.js';
import { priceSession } from '../pricing/cost.js';
import { reportLinkedPullRequests } from './gh.js';
import { action, printJson, sleep } from './output.js';
import { CliError, clientFor, readProfile, resolveProfile, stateDir, writePrivateJson } from './profile.js';

const MiB = 1024 * 1024;
export const SYNC_MAX_SESSIONS = 50;
/** 8 MiB is the server's limit for the whole request; keep room for the envelope. */
export const SYNC_MAX_BYTES = 8 * MiB - 16 * 1024;
const MAX_ATTEMPTS = 6;
/** Server limits on blobs (session images, full tier only): count a request and bytes a blob. */
export const SYNC_MAX_BLOBS = 64;
export const SYNC_MAX_BLOB_BYTES = 2 * MiB;

export type SourceKind = 'claude-code' | 'codex';

export interface FoundFile {
  path: string;
  kind: SourceKind;
  size: number;
  mtimeMs: number;
}

interface Watermark {
  size: number;
  mtimeMs: number;
  tier: CaptureTier;
  sessionId: string;
}
type WatermarkFile = Record<string, Record<string, Watermark>>;

interface Prepared {
  file: FoundFile;
  session: AgentSessionV1;
  /** Images of this session (full tier), sent in the same request. */
  blobs: ImageBlob[];
  blobCount: number;
  bytes: number;
}

/** What one request carries for one session (or one chunk part of it). */
interface Outgoing {
  session: AgentSessionV1;
  blobs: ImageBlob[];
}

function blobBytes(blobs: ImageBlob[]): number {
  return blobs.reduce((n, b) => n + b.data.length + 160, 0);
}

function requestBody(items: Outgoing[]): SyncBody {
  const blobs = items.flatMap((i) => i.blobs);
  return { schemaVersion: 1, sessions: items.map((i) => i.session), ...(blobs.length > 0 ? { blobs } : {}) };
}

interface SyncFlags {
  since?: string;
  dryRun?: boolean;
  json?: boolean;
  tier?: string;
  progress?: boolean;
}

export function claudeRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ATTEST_CLAUDE_DIR || path.join(os.homedir(), '.claude', 'projects');
}

export function codexRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ATTEST_CODEX_DIR || path.join(os.homedir(), '.codex', 'sessions');
}

function walk(dir: string, depth: number, accept: (name: string) => boolean, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory() && depth > 0) walk(full, depth - 1, accept, out);
    else if (e.isFile() && accept(e.name)) out.push(full);
  }
}

/** Every transcript file under the two roots, oldest first. */
export function discover(env: NodeJS.ProcessEnv = process.env): FoundFile[] {
  const found: { path: string; kind: SourceKind }[] = [];
  const claude: string[] = [];
  // <project>/<session>.jsonl and <project>/<session>/subagents/agent-<id>.jsonl
  walk(claudeRoot(env), 3, (n) => n.endsWith('.jsonl'), claude);
  found.push(...claude.map((p) => ({ path: p, kind: 'claude-code' as const })));
  const codex: string[] = [];
  // YYYY/MM/DD/rollout-*.jsonl
  walk(codexRoot(env), 4, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), codex);
  found.push(...codex.map((p) => ({ path: p, kind: 'codex' as const })));
  const out: FoundFile[] = [];
  for (const f of found) {
    try {
      const st = fs.statSync(f.path);
      out.push({ ...f, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // vanished between listing and stat
    }
  }
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
}

function watermarkPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'sync-watermarks.json');
}

function readWatermarks(): WatermarkFile {
  try {
    const v = JSON.parse(fs.readFileSync(watermarkPath(), 'utf8')) as unknown;
    return v !== null && typeof v === 'object' ? (v as WatermarkFile) : {};
  } catch {
    return {};
  }
}

const repoCache = new Map<string, string | undefined>();
/** The origin remote of a session's working directory, when it still exists on this machine. */
function gitRepoOf(cwd: string): string | undefined {
  if (repoCache.has(cwd)) return repoCache.get(cwd);
  let repo: string | undefined;
  if (fs.existsSync(cwd)) {
    const r = spawnSync('git', ['-C', cwd, 'config', '--get', 'remote.origin.url'], {
      encoding: 'utf8',
      timeout: 2000,
    });
    const url = r.status === 0 ? r.stdout.trim() : '';
    if (url) repo = normalizeRepoUrl(url);
  }
  repoCache.set(cwd, repo);
  return repo;
}

export function parseFile(file: FoundFile, tier: CaptureTier): AgentSessionV1 {
  const text = fs.readFileSync(file.path, 'utf8');
  const session = captureSession(text, file.kind, tier, file.path);
  session.env.os = process.platform;
  if (tier !== 'metrics' && !session.env.gitRepo && session.env.cwd) {
    const repo = gitRepoOf(session.env.cwd);
    if (repo) session.env.gitRepo = repo;
  }
  return session;
}

function sizeOf(session: AgentSessionV1): number {
  return Buffer.byteLength(JSON.stringify(session));
}

/** A session too large for one request, as `chunk` parts of consecutive turns (events ride in part 1). */
export function chunkSession(session: AgentSessionV1, maxBytes: number): AgentSessionV1[] {
  const calls = session.turns.flatMap((t) => t.toolCalls);
  const counts = {
    turns: session.turns.length,
    toolCalls: calls.length,
    errors: calls.filter((c) => c.status === 'error').length,
    userTurns: session.turns.filter((t) => t.role === 'user').length,
    apiErrors: session.events.filter((e) => e.type === 'api_error').length,
    rejectedToolCalls: calls.filter((c) => c.status === 'rejected').length,
  };
  const shell = { ...session, turns: [], events: [] };
  const base = sizeOf(shell as AgentSessionV1) + 256;
  const groups: AgentSessionV1['turns'][] = [[]];
  let used = base + sizeOf({ ...shell, events: session.events } as AgentSessionV1) - sizeOf(shell as AgentSessionV1);
  for (const turn of session.turns) {
    const size = Buffer.byteLength(JSON.stringify(turn)) + 1;
    if (used + size > maxBytes && groups[groups.length - 1]!.length > 0) {
      groups.push([]);
      used = base;
    }
    groups[groups.length - 1]!.push(turn);
    used += size;
  }
  return groups.map((turns, i) => ({
    ...session,
    turns,
    events: i === 0 ? session.events : [],
    chunk: { part: i + 1, of: groups.length, counts },
  }));
}

/** Groups sessions into requests of at most `maxSessions`, `maxBytes` and `maxBlobs`. */
export function packBatches<T extends { bytes: number; blobCount?: number }>(
  items: T[],
  maxSessions = SYNC_MAX_SESSIONS,
  maxBytes = SYNC_MAX_BYTES,
  maxBlobs = SYNC_MAX_BLOBS,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 64;
  let blobs = 0;
  for (const item of items) {
    const itemBlobs = item.blobCount ?? 0;
    if (
      current.length > 0 &&
      (current.length >= maxSessions || bytes + item.bytes + 1 > maxBytes || blobs + itemBlobs > maxBlobs)
    ) {
      batches.push(current);
      current = [];
      bytes = 64;
      blobs = 0;
    }
    current.push(item);
    bytes += item.bytes + 1;
    blobs += itemBlobs;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

interface Reporter {
  start(total: number): void;
  tick(sent: number, note: string): void;
  line(text: string): void;
  stop(): void;
}

function reporter(flags: SyncFlags): Reporter {
  const tty = Boolean(process.stderr.isTTY) && !flags.json && flags.progress !== false;
  if (tty) {
    // Required here, not imported at the top: every `attest` command (and `attest serve`) loads this file.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        format: 'sync [{bar}] {value}/{total} sessions {note}',
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (total) => bar.start(total, 0, { note: '' }),
      tick: (sent, note) => bar.update(sent, { note }),
      line: (text) => bar.update({ note: text }),
      stop: () => bar.stop(),
    };
  }
  const quiet = Boolean(flags.json);
  const write = (t: string) => {
    if (!quiet) process.stderr.write(`${t}\n`);
  };
  return {
    start: (total) => write(`sync: ${total} session(s) to send`),
    tick: (sent, note) => write(`sync: ${sent} sent ${note}`),
    line: write,
    stop: () => undefined,
  };
}

function retryBaseMs(): number {
  const v = Number(process.env.ATTEST_RETRY_BASE_MS);
  return Number.isFinite(v) && v >= 0 ? v : 500;
}

interface SendOutcome {
  rejectedBlobs: number;
  accepted: Set<string>;
  rejected: { id: string | null; reason: string }[];
  requests: number;
  tenantTier?: string;
}

/**
 * Sends one batch, retrying per spec part 7. A 413 splits the batch in two (a single session is cut into
 * chunk parts). Throws on 401/403 and when retries run out.
 */
async function sendBatch(client: AttestClient, items: Outgoing[], out: SendOutcome, rep: Reporter): Promise<void> {
  const sessions = items.map((i) => i.session);
  for (let attempt = 1; ; attempt++) {
    try {
      out.requests += 1;
      const result: SyncResult = await client.syncSessions(requestBody(items));
      const accepted = Array.isArray(result.accepted) ? result.accepted : [];
      for (const id of accepted) if (typeof id === 'string') out.accepted.add(id);
      if (Array.isArray(result.rejected))
        for (const r of result.rejected) out.rejected.push({ id: r.id ?? null, reason: r.reason });
      if (Array.isArray(result.rejectedBlobs)) out.rejectedBlobs += result.rejectedBlobs.length;
      if (typeof result.tenantTier === 'string') out.tenantTier = result.tenantTier;
      return;
    } catch (err) {
      if (!(err instanceof ApiClientError)) throw err;
      if (err.status === 401 || err.status === 403) throw err;
      if (err.status === 413) {
        if (sessions.length > 1) {
          const mid = Math.ceil(sessions.length / 2);
          rep.line(
            `413 payload_too_large: splitting ${sessions.length} sessions into ${mid} + ${sessions.length - mid}`,
          );
          await sendBatch(client, items.slice(0, mid), out, rep);
          await sendBatch(client, items.slice(mid), out, rep);
          return;
        }
        const only = sessions[0]!;
        const onlyBlobs = items[0]!.blobs;
        const limit = typeof err.extra.limit === 'number' ? err.extra.limit : SYNC_MAX_BYTES;
        const target = Math.min(Math.floor(sizeOf(only) / 2), limit - 64 * 1024);
        if (only.turns.length > 1 && target > 0) {
          const parts = chunkSession(only.chunk ? ({ ...only, chunk: undefined } as AgentSessionV1) : only, target);
          if (parts.length > 1) {
            rep.line(`413 payload_too_large: sending session ${only.id} in ${parts.length} parts`);
            for (const [i, part] of parts.entries())
              await sendBatch(client, [{ session: part, blobs: i === 0 ? onlyBlobs : [] }], out, rep);
            return;
          }
        }
        out.rejected.push({ id: only.id, reason: `too large for the gateway even alone (413, limit ${limit} bytes)` });
        return;
      }
      if (!err.retryable || attempt >= MAX_ATTEMPTS) throw err;
      const waitMs = err.status === 429 ? (err.retryAfter ?? 1) * 1000 : retryBaseMs() * 2 ** (attempt - 1);
      rep.line(
        `${err.status === 0 ? 'no answer' : `${err.status} ${err.code}`}; retrying in ${(waitMs / 1000).toFixed(1)} s (attempt ${attempt + 1}/${MAX_ATTEMPTS})`,
      );
      await sleep(waitMs);
    }
  }
}

export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('Send new and grown agent sessions (Claude Code, Codex) to the gateway')
    .option('--since <date>', 'only sessions active since this date (ISO date or date-time)')
    .option('--dry-run', 'print exactly what would leave the machine and send nothing')
    .option('--json', 'machine-readable output (with --dry-run: the request bodies)')
    .option(
      '--tier <tier>',
      'what leaves the machine: metrics, redacted (default: no message text) or full',
      'redacted',
    )
    .option('--no-progress', 'plain lines instead of a progress bar')
    .action(action(async (flags: SyncFlags) => runSync(flags)));
}

async function runSync(flags: SyncFlags): Promise<void> {
  const tier = flags.tier ?? 'redacted';
  if (!isCaptureTier(tier)) throw new CliError(`--tier must be metrics, redacted or full (got "${tier}")`);
  let sinceMs: number | undefined;
  if (flags.since) {
    sinceMs = Date.parse(flags.since);
    if (!Number.isFinite(sinceMs)) throw new CliError(`--since "${flags.since}" is not a date`);
  }

  // A dry run needs no login; it still honours the watermark of the profile's gateway when there is one.
  const stored = readProfile();
  const profile = flags.dryRun ? undefined : resolveProfile();
  const url = profile?.url ?? process.env.ATTEST_URL ?? stored.url ?? '';
  const appId = profile?.appId ?? process.env.ATTEST_APP_ID ?? stored.appId ?? '';
  const target = `${url}|${appId}`;
  const watermarks = readWatermarks();
  const marks = (watermarks[target] ??= {});

  const files = discover().filter((f) => sinceMs === undefined || f.mtimeMs >= sinceMs);
  const changed = files.filter((f) => {
    const m = marks[f.path];
    return !m || m.size !== f.size || m.mtimeMs !== f.mtimeMs || m.tier !== tier;
  });

  const prepared: Prepared[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const empty: FoundFile[] = [];
  let blobsLeftOut = 0;
  for (const file of changed) {
    let session: AgentSessionV1;
    try {
      session = parseFile(file, tier);
    } catch (err) {
      skipped.push({ path: file.path, reason: `unreadable: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    if (session.turns.length === 0) {
      skipped.push({ path: file.path, reason: 'no turns' });
      empty.push(file);
      continue;
    }
    if (sinceMs !== undefined && Date.parse(session.endedAt ?? session.startedAt) < sinceMs) {
      skipped.push({ path: file.path, reason: 'ended before --since' });
      continue;
    }
    let blobs: ImageBlob[] = [];
    if (tier === 'full' && file.kind === 'claude-code' && session.turns.some((t) => (t.images?.length ?? 0) > 0)) {
      // Images over the server's blob limit stay referenced by sha256 only; the rest ride along (≤ 64 a request).
      const all = claudeImageBlobs(fs.readFileSync(file.path, 'utf8'));
      let budget = SYNC_MAX_BYTES / 2; // a session's images take at most half a request; its turns the rest
      blobs = all
        .filter((b) => {
          const cost = b.data.length + 160;
          if (b.bytes > SYNC_MAX_BLOB_BYTES || cost > budget) return false;
          budget -= cost;
          return true;
        })
        .slice(0, SYNC_MAX_BLOBS);
      blobsLeftOut += all.length - blobs.length;
    }
    const bytes = sizeOf(session) + blobBytes(blobs);
    if (bytes + 64 > SYNC_MAX_BYTES) {
      const parts = chunkSession(session, SYNC_MAX_BYTES - 64 * 1024 - blobBytes(blobs));
      for (const [i, part] of parts.entries()) {
        const partBlobs = i === 0 ? blobs : [];
        prepared.push({
          file,
          session: part,
          blobs: partBlobs,
          blobCount: partBlobs.length,
          bytes: sizeOf(part) + blobBytes(partBlobs),
        });
      }
    } else prepared.push({ file, session, blobs, blobCount: blobs.length, bytes });
  }
  const batches = packBatches(prepared);
  const summary = {
    ...summarize(prepared, tier, files.length, changed.length, skipped, batches.length),
    images: prepared.reduce((n, p) => n + p.blobs.length, 0),
    imagesLeftOut: blobsLeftOut,
  };

  if (flags.dryRun) {
    if (flags.json) {
      printJson({
        dryRun: true,
        ...summary,
        requests: batches.map((b) => ({ method: 'POST', path: '/v1/agents/sync', body: requestBody(b) })),
      });
      return;
    }
    printDryRun(summary, prepared);
    return;
  }

  const client = clientFor(profile!);
  const rep = reporter(flags);
  const out: SendOutcome = { accepted: new Set(), rejected: [], requests: 0, rejectedBlobs: 0 };
  rep.start(prepared.length);
  let sent = 0;
  try {
    for (const [i, batch] of batches.entries()) {
      await sendBatch(
        client,
        batch.map((p) => ({ session: p.session, blobs: p.blobs })),
        out,
        rep,
      );
      sent += batch.length;
      // Advance the watermark of every file whose sessions (all parts) the gateway accepted.
      const rejectedIds = new Set(out.rejected.map((r) => r.id));
      for (const p of batch) {
        if (out.accepted.has(p.session.id) && !rejectedIds.has(p.session.id)) {
          marks[p.file.path] = { size: p.file.size, mtimeMs: p.file.mtimeMs, tier, sessionId: p.session.id };
        }
      }
      writePrivateJson(watermarkPath(), watermarks);
      rep.tick(sent, `(batch ${i + 1}/${batches.length}, ${out.accepted.size} accepted)`);
    }
  } catch (err) {
    rep.stop();
    writePrivateJson(watermarkPath(), watermarks);
    if (err instanceof ApiClientError && (err.status === 401 || err.status === 403)) {
      throw new CliError(
        err.status === 401
          ? `Sync stopped: the gateway refused the credential (401 ${err.code}). Run \`attest login\` again. ${sent} of ${prepared.length} session(s) were sent before.`
          : `Sync stopped: the credential may not write sessions (403 ${err.code}${typeof err.extra.required_permission === 'string' ? `, needs ${err.extra.required_permission}` : ''}). ${sent} of ${prepared.length} session(s) were sent before.`,
        4,
      );
    }
    if (err instanceof ApiClientError && err.code === 'connection_refused') {
      throw new CliError(
        `Sync stopped: ${err.message}. Is the gateway running? Check the URL with \`attest whoami\`. Nothing is lost; run attest sync again.`,
        3,
      );
    }
    if (err instanceof ApiClientError && err.status === 0)
      throw new CliError(
        `Sync stopped: ${err.message} (gave up after ${MAX_ATTEMPTS} attempts). Nothing is lost; run attest sync again.`,
        3,
      );
    throw err;
  }
  rep.stop();
  // Files without a turn (a snapshot-only transcript) are not read again until they change.
  for (const file of empty) marks[file.path] = { size: file.size, mtimeMs: file.mtimeMs, tier, sessionId: '' };
  if (empty.length > 0) writePrivateJson(watermarkPath(), watermarks);
  // What the gateway took: the sessions it accepted (every part) and did not reject.
  const rejectedIds = new Set(out.rejected.map((r) => r.id));
  const tookPrepared = prepared.filter((p) => out.accepted.has(p.session.id) && !rejectedIds.has(p.session.id));
  const took = summarize(tookPrepared, tier, files.length, changed.length, [], 0);
  // The state of the PRs these sessions link to, read with gh where it is installed and logged in (silent otherwise).
  const pullRequestsReported = await reportLinkedPullRequests(
    client,
    tookPrepared.map((p) => p.session),
  );
  const sentTotals = {
    sessions: took.sessions,
    turns: took.turns,
    toolCalls: took.toolCalls,
    tokens: took.tokens,
    estimatedCostUsd: took.estimatedCostUsd,
    sessionsNotFullyPriced: took.sessionsNotFullyPriced,
  };
  const result = {
    ...summary,
    sent: out.accepted.size,
    sentTotals,
    rejected: out.rejected,
    rejectedImages: out.rejectedBlobs,
    requests: out.requests,
    tenantTier: out.tenantTier ?? null,
    pullRequestsReported,
  };
  if (flags.json) printJson(result);
  else {
    const w = (t: string) => process.stdout.write(`${t}\n`);
    w(
      `Synced ${out.accepted.size} session(s) in ${out.requests} request(s) at tier ${tier}${out.tenantTier ? ` (plan ${out.tenantTier})` : ''}; ${files.length - changed.length} unchanged file(s) skipped.`,
    );
    if (took.sessions > 0) {
      w(`  sent: ${took.sessions} session(s), ${took.turns} turns, ${took.toolCalls} tool calls`);
      w(
        `  tokens: input ${took.tokens.input}, output ${took.tokens.output}, cache read ${took.tokens.cacheRead}, cache creation ${took.tokens.cacheCreation}`,
      );
      w(
        `  estimated cost: $${took.estimatedCostUsd.toFixed(4)}${took.sessionsNotFullyPriced ? ` (${took.sessionsNotFullyPriced} session(s) with unpriced models not counted)` : ''}`,
      );
      if (pullRequestsReported > 0) w(`  pull requests: state of ${pullRequestsReported} read with gh and reported`);
      w('  see them with `attest sessions --all-repos` and `attest costs`');
    }
    for (const r of out.rejected) w(`  rejected ${r.id ?? '(no id)'}: ${r.reason}`);
  }
  if (out.rejected.length > 0) process.exitCode = 2;
}

function summarize(
  prepared: Prepared[],
  tier: CaptureTier,
  found: number,
  changed: number,
  skipped: { path: string; reason: string }[],
  batches: number,
) {
  const sessions = new Map<string, AgentSessionV1[]>();
  for (const p of prepared) sessions.set(p.session.id, [...(sessions.get(p.session.id) ?? []), p.session]);
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  let turns = 0;
  let toolCalls = 0;
  let costMicros = 0;
  let unpriced = 0;
  for (const parts of sessions.values()) {
    const whole = parts[0]!;
    tokens.input += whole.totals.inputTokens;
    tokens.output += whole.totals.outputTokens;
    tokens.cacheRead += whole.totals.cacheReadTokens;
    tokens.cacheCreation += whole.totals.cacheCreationTokens;
    const allTurns = parts.flatMap((p) => p.turns);
    turns += allTurns.length;
    toolCalls += allTurns.reduce((n, t) => n + t.toolCalls.length, 0);
    const cost = priceSession(allTurns);
    costMicros += cost.costMicros;
    if (cost.status !== 'complete') unpriced += 1;
  }
  return {
    tier,
    filesFound: found,
    filesChanged: changed,
    sessions: sessions.size,
    batches,
    bytes: prepared.reduce((n, p) => n + p.bytes, 0),
    turns,
    toolCalls,
    tokens,
    estimatedCostUsd: costMicros / 1e6,
    sessionsNotFullyPriced: unpriced,
    skipped,
  };
}

function printDryRun(
  summary: ReturnType<typeof summarize> & { images: number; imagesLeftOut: number },
  prepared: Prepared[],
): void {
  const w = (t: string) => process.stdout.write(`${t}\n`);
  w(`Dry run: nothing was sent. At tier "${summary.tier}" this would leave the machine:`);
  w(
    `  ${summary.sessions} session(s) from ${summary.filesChanged} new or grown file(s) (${summary.filesFound} found), in ${summary.batches} request(s), ${summary.bytes} bytes`,
  );
  w(
    `  ${summary.turns} turns, ${summary.toolCalls} tool calls${summary.images ? `, ${summary.images} image(s)` : ''}${summary.imagesLeftOut ? ` (${summary.imagesLeftOut} image(s) over the limits stay local)` : ''}`,
  );
  w(
    `  tokens: input ${summary.tokens.input}, output ${summary.tokens.output}, cache read ${summary.tokens.cacheRead}, cache creation ${summary.tokens.cacheCreation}`,
  );
  w(
    `  estimated cost: $${summary.estimatedCostUsd.toFixed(4)}${summary.sessionsNotFullyPriced ? ` (${summary.sessionsNotFullyPriced} session(s) with unpriced models)` : ''}`,
  );
  w(
    summary.tier === 'full'
      ? '  content: message text, thinking, tool inputs and outputs (secrets scrubbed)'
      : summary.tier === 'redacted'
        ? '  content: no message text; paths, branch, repository, file names, PR links and error signatures (secrets scrubbed)'
        : '  content: numbers only (no paths, branches, files or PR links)',
  );
  for (const p of prepared) {
    const s = p.session;
    w(
      `  - ${s.id} ${s.agent.type}${s.chunk ? ` part ${s.chunk.part}/${s.chunk.of}` : ''} ${s.startedAt} turns=${s.turns.length} tokens in=${s.totals.inputTokens} out=${s.totals.outputTokens} ${p.file.path}`,
    );
  }
  for (const s of summary.skipped) w(`  skipped ${s.path}: ${s.reason}`);
  w('Use --json to print the exact request bodies.');
}
