// The verdict's facts at capture: computed on this machine from the full transcript (commands and their
// output included), then carried in the session document as events holding data only, so the default
// `redacted` tier sends what was run and how it ended without the command text. `outcome.commitShas` lists
// the commits the session made.
// The modules themselves, not verify/index.js: its schemas would load TypeBox into every capture.
import { FACTS_EVENT } from '../verify/constants.js';
import { factsEvents, factsOfDocument } from '../verify/facts.js';
import type { SessionVerification } from '../verify/schema.js';
import { parseClaudeCodeTranscript } from './claude.js';
import { parseCodexRollout } from './codex.js';
import { applyTier } from './tier.js';
import type { AgentSessionV1, CaptureTier } from './types.js';

const FACT_TYPES: ReadonlySet<string> = new Set(Object.values(FACTS_EVENT));

/** Whether an event is one of the verdict's facts events. */
export function isFactsEvent(type: string): boolean {
  return FACT_TYPES.has(type);
}

/** A full-tier session with its facts added as events (after its own) and its commits in `outcome`. */
export function withVerificationFacts(session: AgentSessionV1): {
  session: AgentSessionV1;
  facts: SessionVerification | null;
} {
  if (session.captureTier !== 'full') return { session, facts: null };
  const facts = factsOfDocument(session);
  if (!facts) return { session, facts: null };
  const kept = session.events.filter((e) => !isFactsEvent(e.type));
  const firstSeq = kept.reduce((m, e) => Math.max(m, e.seq + 1), 0);
  const out: AgentSessionV1 = { ...session, events: [...kept, ...factsEvents(facts, firstSeq)] };
  if (facts.commits.length > 0) out.outcome = { ...session.outcome, commitShas: [...facts.commits] };
  return { session: out, facts };
}

/** A transcript read for sending: parsed in full, facts added, then cut to `tier`. */
export function captureSession(
  text: string,
  kind: 'claude-code' | 'codex',
  tier: CaptureTier,
  sourcePath?: string,
): AgentSessionV1 {
  const opts = { tier: 'full' as const, ...(sourcePath ? { sourcePath } : {}) };
  const full = kind === 'codex' ? parseCodexRollout(text, opts) : parseClaudeCodeTranscript(text, opts);
  return applyTier(withVerificationFacts(full).session, tier);
}
