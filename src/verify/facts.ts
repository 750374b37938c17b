// The facts of one session document.
import type { FactsDocument, FactsEvent, SessionVerification } from './schema.js';

/**
 * The verification facts of a session: from full-tier tool input and output when present, otherwise from
 * the facts events the CLI wrote at capture; null when nothing is checkable (metrics tier, or no facts).
 */
export function factsOfDocument(doc: FactsDocument): SessionVerification | null {
  void doc;
  throw new Error('factsOfDocument: not implemented yet');
}

/** The session-document events (data only) that carry `facts` at the redacted tier, seq from `firstSeq`. */
export function factsEvents(facts: SessionVerification, firstSeq: number): FactsEvent[] {
  void facts;
  void firstSeq;
  throw new Error('factsEvents: not implemented yet');
}
