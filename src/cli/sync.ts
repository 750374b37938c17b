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
import type { Command } from 'commander';
import { claudeImageBlobs, isCaptureTier, type AgentSessionV1, type ImageBlob } from '../capture/index.js';
import { ApiClientError, type AttestClient } from '../client/index.js';
import { reportLinkedPullRequests } from './gh.js';
import { action, printJson } from './output.js';
import { CliError, clientFor, readProfile, resolveProfile, writePrivateJson } from './profile.js';
import {
  MAX_ATTEMPTS,
  SYNC_MAX_BLOB_BYTES,
  SYNC_MAX_BLOBS,
  SYNC_MAX_BYTES,
  blobBytes,
  chunkSession,
  packBatches,
  requestBody,
  sendBatch,
  sizeOf,
  type Prepared,
  type SendOutcome,
} from './sync/batches.js';
import { discover, parseFile, readWatermarks, watermarkPath, type FoundFile } from './sync/discovery.js';
import { printDryRun, reporter, summarize, type SyncFlags } from './sync/reporting.js';

export {
  SYNC_MAX_BLOB_BYTES,
  SYNC_MAX_BLOBS,
  SYNC_MAX_BYTES,
  SYNC_MAX_SESSIONS,
  chunkSession,
  packBatches,
} from './sync/batches.js';
export { claudeRoot, codexRoot, discover, parseFile, type FoundFile, type SourceKind } from './sync/discovery.js';

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
    .action(
      action(async (flags: SyncFlags) => {
        await runSync(flags);
      }),
    );
}

/** What one sync sent: the AgentSession ids the gateway took, and those it refused. */
export interface SyncRun {
  sent: number;
  sessionIds: string[];
  rejected: { id: string | null; reason: string }[];
}

/**
 * One sync. `only` limits it to these files (the sessions the hooks named) instead of every file found;
 * `quiet` prints nothing (the background drain logs the result it returns instead). Throws a CliError when
 * the gateway refused the credential (exit 4) or could not be reached (exit 3): nothing was lost then.
 */
export async function runSync(flags: SyncFlags & { quiet?: boolean }, only?: FoundFile[]): Promise<SyncRun> {
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

  const files = (only ?? discover()).filter((f) => sinceMs === undefined || f.mtimeMs >= sinceMs);
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
      return { sent: 0, sessionIds: [], rejected: [] };
    }
    printDryRun(summary, prepared);
    return { sent: 0, sessionIds: [], rejected: [] };
  }

  const client = clientFor(profile!);
  const rep = reporter(flags.quiet ? { ...flags, json: true } : flags);
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
          ? `Sync stopped: the gateway refused the credential (401 ${err.code}). Run \`attest login\` again. ${sent} ` +
              `of ${prepared.length} session(s) were sent before.`
          : `Sync stopped: the credential may not write sessions (403 ${err.code}` +
              `${typeof err.extra.required_permission === 'string' ? `, needs ${err.extra.required_permission}` : ''}` +
              `). ${sent} of ${prepared.length} session(s) were sent before.`,
        4,
      );
    }
    if (err instanceof ApiClientError && err.code === 'connection_refused') {
      throw new CliError(
        `Sync stopped: ${err.message}. Is the gateway running? Check the URL with \`attest whoami\`. Nothing is ` +
          `lost; run attest sync again.`,
        3,
      );
    }
    if (err instanceof ApiClientError && err.status === 0)
      throw new CliError(
        `Sync stopped: ${err.message} (gave up after ${MAX_ATTEMPTS} attempts). Nothing is lost; run attest sync ` +
          `again.`,
        3,
      );
    throw err;
  }
  rep.stop();
  await reportGivenUp(client, out.givenUp ?? []);
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
  const run: SyncRun = {
    sent: out.accepted.size,
    sessionIds: tookPrepared.map((p) => p.session.id).filter((id, i, all) => all.indexOf(id) === i),
    rejected: out.rejected,
  };
  if (flags.quiet) return run;
  if (flags.json) printJson(result);
  else {
    const w = (t: string) => process.stdout.write(`${t}\n`);
    w(
      `Synced ${out.accepted.size} session(s) in ${out.requests} request(s) at tier ${tier}` +
        `${out.tenantTier ? ` (plan ${out.tenantTier})` : ''}; ${files.length - changed.length} unchanged file(s) ` +
        `skipped.`,
    );
    if (took.sessions > 0) {
      w(`  sent: ${took.sessions} session(s), ${took.turns} turns, ${took.toolCalls} tool calls`);
      w(
        `  tokens: input ${took.tokens.input}, output ${took.tokens.output}, cache read ${took.tokens.cacheRead}, ` +
          `cache creation ${took.tokens.cacheCreation}`,
      );
      const unpriced = took.sessionsNotFullyPriced
        ? ` (${took.sessionsNotFullyPriced} session(s) with unpriced models not counted)`
        : '';
      w(`  estimated cost: $${took.estimatedCostUsd.toFixed(4)}${unpriced}`);
      if (pullRequestsReported > 0) w(`  pull requests: state of ${pullRequestsReported} read with gh and reported`);
      w('  see them with `attest sessions --all-repos` and `attest costs`');
    }
    for (const r of out.rejected) w(`  rejected ${r.id ?? '(no id)'}: ${r.reason}`);
  }
  if (out.rejected.length > 0) process.exitCode = 2;
  return run;
}

/**
 * Tells the gateway which sessions this CLI gave up on by itself (a session too large even alone), so the
 * factory's `session.failed_sync` notice covers them too. Best effort: the sync's own outcome stands whatever
 * this answers (an older gateway without the route included).
 */
async function reportGivenUp(client: AttestClient, failures: { sessionId: string; reason: string }[]): Promise<void> {
  for (let i = 0; i < failures.length; i += 50)
    await client.reportSyncFailures(failures.slice(i, i + 50)).catch(() => undefined);
}
