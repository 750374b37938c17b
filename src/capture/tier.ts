// Redaction tiers. The schema marks each sensitive field `tier:redacted` (kept at redacted and full) or
// `tier:full` (kept at full only); everything unmarked is a metric and kept at every tier. Parsers build the
// full document once and this module cuts it down, so the three tiers cannot drift apart.
import type { AgentSessionV1, CaptureTier } from './types.js';
import { scrubDeep } from './scrub.js';
import { FACTS_EVENT } from '../verify/constants.js';

const FACT_TYPES: ReadonlySet<string> = new Set(Object.values(FACTS_EVENT));

export const CAPTURE_TIERS: readonly CaptureTier[] = ['metrics', 'redacted', 'full'];

export function isCaptureTier(value: unknown): value is CaptureTier {
  return typeof value === 'string' && (CAPTURE_TIERS as readonly string[]).includes(value);
}

function rank(tier: CaptureTier): number {
  return CAPTURE_TIERS.indexOf(tier);
}

/** A copy of `session` holding only what `tier` lets leave the machine, secrets scrubbed. */
export function applyTier(session: AgentSessionV1, tier: CaptureTier): AgentSessionV1 {
  const s = structuredClone(session);
  // A document never gains detail: down-converting a metrics document to full keeps it metrics.
  const effective = rank(tier) < rank(s.captureTier) ? tier : s.captureTier;
  s.captureTier = effective;
  const keepRedacted = rank(effective) >= rank('redacted');
  const keepFull = effective === 'full';

  if (!keepFull) {
    delete s.title;
    delete s.vendor;
    for (const turn of s.turns) {
      delete turn.text;
      delete turn.thinking;
      delete turn.images;
      delete turn.vendor;
      for (const call of turn.toolCalls) {
        delete call.input;
        delete call.output;
      }
    }
    for (const ev of s.events) delete ev.errorText;
  }
  if (!keepRedacted) {
    if (s.actor) delete s.actor.email;
    delete s.env.cwd;
    delete s.env.gitBranch;
    delete s.env.gitRepo;
    delete s.env.commitSha;
    delete s.outcome;
    // The verdict's facts events are nothing but their data; at the metrics tier no fact is kept.
    s.events = s.events.filter((ev) => !FACT_TYPES.has(ev.type));
    for (const ev of s.events) delete ev.data;
    for (const turn of s.turns) {
      for (const call of turn.toolCalls) {
        delete call.file;
        delete call.errorSignature;
      }
    }
    for (const w of s.warnings) delete w.detail;
    s.warnings = mergeWarningsByCode(s.warnings);
  }
  return scrubDeep(s);
}

function mergeWarningsByCode(warnings: AgentSessionV1['warnings']): AgentSessionV1['warnings'] {
  const byCode = new Map<string, number>();
  for (const w of warnings) byCode.set(w.code, (byCode.get(w.code) ?? 0) + w.count);
  return [...byCode].map(([code, count]) => ({ code, count }));
}
