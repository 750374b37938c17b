import type { AgentSessionV1, ImageBlob } from '../../capture/index.js';
import { ApiClientError, type AttestClient, type SyncBody, type SyncResult } from '../../client/index.js';
import { sleep } from '../output.js';
import type { FoundFile } from './discovery.js';
import type { Reporter } from './reporting.js';

const MiB = 1024 * 1024;
export const SYNC_MAX_SESSIONS = 50;
/** 8 MiB is the server's limit for the whole request; keep room for the envelope. */
export const SYNC_MAX_BYTES = 8 * MiB - 16 * 1024;
export const MAX_ATTEMPTS = 6;
/** Server limits on blobs (session images, full tier only): count a request and bytes a blob. */
export const SYNC_MAX_BLOBS = 64;
export const SYNC_MAX_BLOB_BYTES = 2 * MiB;

export interface Prepared {
  file: FoundFile;
  session: AgentSessionV1;
  /** Images of this session (full tier), sent in the same request. */
  blobs: ImageBlob[];
  blobCount: number;
  bytes: number;
}

/** What one request carries for one session (or one chunk part of it). */
export interface Outgoing {
  session: AgentSessionV1;
  blobs: ImageBlob[];
}

export function blobBytes(blobs: ImageBlob[]): number {
  return blobs.reduce((n, b) => n + b.data.length + 160, 0);
}

export function requestBody(items: Outgoing[]): SyncBody {
  const blobs = items.flatMap((i) => i.blobs);
  return { schemaVersion: 1, sessions: items.map((i) => i.session), ...(blobs.length > 0 ? { blobs } : {}) };
}

export function sizeOf(session: AgentSessionV1): number {
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

function retryBaseMs(): number {
  const v = Number(process.env.ATTEST_RETRY_BASE_MS);
  return Number.isFinite(v) && v >= 0 ? v : 500;
}

export interface SendOutcome {
  rejectedBlobs: number;
  accepted: Set<string>;
  rejected: { id: string | null; reason: string }[];
  /** The part of `rejected` the CLI decided itself (the gateway never saw them), to report to the gateway. */
  givenUp?: { sessionId: string; reason: string }[];
  requests: number;
  tenantTier?: string;
}

/**
 * Sends one batch, retrying per spec part 7. A 413 splits the batch in two (a single session is cut into
 * chunk parts). Throws on 401/403 and when retries run out.
 */
export async function sendBatch(
  client: AttestClient,
  items: Outgoing[],
  out: SendOutcome,
  rep: Reporter,
): Promise<void> {
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
        const reason = `too large for the gateway even alone (413, limit ${limit} bytes)`;
        out.rejected.push({ id: only.id, reason });
        (out.givenUp ??= []).push({ sessionId: only.id, reason });
        return;
      }
      if (!err.retryable || attempt >= MAX_ATTEMPTS) throw err;
      const waitMs = err.status === 429 ? (err.retryAfter ?? 1) * 1000 : retryBaseMs() * 2 ** (attempt - 1);
      rep.line(
        `${err.status === 0 ? 'no answer' : `${err.status} ${err.code}`}; retrying in ${(waitMs / 1000).toFixed(1)} ` +
          `s (attempt ${attempt + 1}/${MAX_ATTEMPTS})`,
      );
      await sleep(waitMs);
    }
  }
}
