// A telemetry session's document grows by a few turns an export, and only its last turn can still change (a tool
// result joins the open assistant turn; session.ts). Writing its JSON and validating it whole on every export made
// an export's CPU grow with the session's length; here the text and the check of its settled turns (every turn but
// the last) are kept with the turns array the fold extends in place, so an export writes and checks only what is
// new. The bytes are exactly JSON.stringify's, so the stored document is the one a whole encoding would make.
import zlib from 'node:zlib';
import { checkSession, type SessionCheck } from '../agents/validate.js';
import { brotliOptions, type AgentSessionV1, type EncodedDocument, type TurnV1 } from '../sessions/document.js';

interface SettledText {
  /** Turns 0..count-1, which no later event changes. */
  count: number;
  /** Their JSON, comma-separated, without the brackets, in the pieces it was written in (joined once, when used). */
  pieces: Buffer[];
}

/**
 * Keyed by the turns array itself: a document the fold extends keeps its array (session.ts takes it over), and a
 * document decoded or rebuilt anew has a new one, so it starts over with nothing settled.
 */
const settledTexts = new WeakMap<readonly TurnV1[], SettledText>();
const settledChecks = new WeakMap<readonly TurnV1[], number>();

const TURNS_KEY = '"turns":[';

/** The turns settled once the last one may change: all but the last. */
const settledCount = (turns: readonly TurnV1[]) => Math.max(0, turns.length - 1);

function turnsText(turns: readonly TurnV1[], from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i++) parts.push(JSON.stringify(turns[i]));
  return parts.join(',');
}

/** The document's JSON, as `Buffer.from(JSON.stringify(doc))` gives it, writing only turns not settled before. */
export function documentJson(doc: AgentSessionV1): Buffer {
  const turns = doc.turns;
  let settled = settledTexts.get(turns);
  if (!settled) {
    settled = { count: 0, pieces: [] };
    settledTexts.set(turns, settled);
  }
  const count = settledCount(turns);
  if (count > settled.count) {
    const more = turnsText(turns, settled.count, count);
    settled.pieces.push(Buffer.from(settled.count ? `,${more}` : more));
    settled.count = count;
  }
  const open = turnsText(turns, settled.count, turns.length);
  // The key order of the document is kept by the spread; "turns":[ appears once (a quote inside a string value
  // is escaped), so the settled text goes right after it.
  const head = JSON.stringify({ ...doc, turns: [] });
  const at = head.indexOf(TURNS_KEY) + TURNS_KEY.length;
  return Buffer.concat([
    Buffer.from(head.slice(0, at)),
    ...settled.pieces,
    Buffer.from(settled.count && open ? `,${open}` : open),
    Buffer.from(head.slice(at)),
  ]);
}

/** encodeDocument(doc, 0) (what a telemetry document is stored as), from documentJson. */
export function encodeTelemetryDocument(doc: AgentSessionV1): EncodedDocument {
  const raw = documentJson(doc);
  return { encoding: 'br', rawBytes: raw.length, body: zlib.brotliCompressSync(raw, brotliOptions(raw.length, 0)) };
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
