// A telemetry session's document grows by a few turns an export, and only its last turn can still change (a tool
// result joins the open assistant turn; session.ts). Writing its JSON, compressing it and validating it whole on
// every export made an export's CPU grow with the session's length. Here the settled turns (all but the last) are
// written and checked once, kept with the turns array the fold extends in place, and compressed once they make a
// large enough piece: the stored body is gzip members in order, which gunzip reads as one stream (gzip allows a
// file of several members), and its bytes inflated are exactly JSON.stringify's.
import zlib from 'node:zlib';
import { checkSession, type SessionCheck } from '../agents/validate.js';
import type { AgentSessionV1, EncodedDocument, TurnV1 } from '../sessions/document.js';

interface SettledTurns {
  /** Turns 0..count-1, which no later event changes. */
  count: number;
  /** Their JSON (comma-separated, without the brackets): the first part as sealed gzip members, in order... */
  members: Buffer[];
  membersRawBytes: number;
  /** ...then the rest, not compressed yet (compressed with the document's tail on each export until sealed). */
  pending: string;
}

/**
 * Keyed by the turns array itself: a document the fold extends keeps its array (session.ts takes it over), and a
 * document decoded or rebuilt anew has a new one, so it starts over with nothing settled.
 */
const settledTurns = new WeakMap<readonly TurnV1[], SettledTurns>();
const settledChecks = new WeakMap<readonly TurnV1[], number>();

const TURNS_KEY = '"turns":[';
/**
 * Settled JSON is sealed into its own member once it holds this many characters: an export of a running session
 * brings a few turns, and compressed alone they would shrink far less than the session's repetitive JSON as a
 * whole; at this size a member compresses about as well as brotli quality 0 does the whole document, and an
 * export compresses at most this much again.
 */
const SEAL_CHARS = 32 * 1024;
const GZIP = { level: zlib.constants.Z_BEST_SPEED };

/** The turns settled once the last one may change: all but the last. */
const settledCount = (turns: readonly TurnV1[]) => Math.max(0, turns.length - 1);

function turnsText(turns: readonly TurnV1[], from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i++) parts.push(JSON.stringify(turns[i]));
  return parts.join(',');
}

/**
 * The document as gzip members (`encoding` gzip; decodeDocument reads it as any stored document), compressing the
 * fields around the turns, the open turn and at most SEAL_CHARS of settled turns. It inflates to
 * JSON.stringify(doc).
 */
export function encodeTelemetryDocument(doc: AgentSessionV1): EncodedDocument {
  const turns = doc.turns;
  let settled = settledTurns.get(turns);
  if (!settled) {
    settled = { count: 0, members: [], membersRawBytes: 0, pending: '' };
    settledTurns.set(turns, settled);
  }
  const count = settledCount(turns);
  if (count > settled.count) {
    settled.pending += (settled.count ? ',' : '') + turnsText(turns, settled.count, count);
    settled.count = count;
    if (settled.pending.length >= SEAL_CHARS) {
      const raw = Buffer.from(settled.pending);
      settled.members.push(zlib.gzipSync(raw, GZIP));
      settled.membersRawBytes += raw.length;
      settled.pending = '';
    }
  }
  const open = turnsText(turns, settled.count, turns.length);
  // The key order of the document is kept by the spread; "turns":[ appears once (a quote inside a string value
  // is escaped), so the settled turns go right after it.
  const head = JSON.stringify({ ...doc, turns: [] });
  const at = head.indexOf(TURNS_KEY) + TURNS_KEY.length;
  const before = Buffer.from(head.slice(0, at));
  const after = Buffer.from(settled.pending + (settled.count && open ? ',' : '') + open + head.slice(at));
  return {
    encoding: 'gzip',
    rawBytes: before.length + settled.membersRawBytes + after.length,
    body: Buffer.concat([zlib.gzipSync(before, GZIP), ...settled.members, zlib.gzipSync(after, GZIP)]),
  };
}

/**
 * checkSession(doc), checking only the turns not settled at the last check of the same turns array: the schema
 * constrains each turn on its own, so settled turns that passed once pass again. A failure is checked whole again,
 * for a reason that names the turn where it is.
 */
export function checkTelemetrySession(doc: AgentSessionV1): SessionCheck {
  const turns = doc.turns;
  const checked = settledChecks.get(turns) ?? 0;
  const result = checked ? checkSession({ ...doc, turns: turns.slice(checked) }) : checkSession(doc);
  if (!result.ok) return checked ? checkSession(doc) : result;
  settledChecks.set(turns, settledCount(turns));
  return { ok: true, session: doc };
}
