// A stored session as the API shows it (the list's, the export's and the transcript's common fields): actor
// pseudonyms for callers without sessions.read_team, and what other areas know of the session (its PRs'
// outcomes, its context's verification).
import crypto from 'node:crypto';
import type { FactoryContext } from '../../server/context.js';
import { contextVerifications, verificationsOf } from '../context/service.js';
import { prOutcomesForRows, type PrOutcome } from '../prs/service.js';
import { listEntryOf } from './list-entry.js';
import type { SessionWire } from './schema.js';
import type { PageReads } from './list-store.js';
import type * as store from './store.js';

/** Pseudonyms already computed (secret and actor id → pseudonym): a list request names up to every actor. */
const pseudonyms = new Map<string, string>();
const PSEUDONYMS_KEPT = 10_000;

/** Stable pseudonym of an actor for callers without sessions.read_team: `anon-` + 16 hex of an HMAC. */
export function pseudonymOf(secret: string, actorId: string): string {
  const key = `${secret}\u0000${actorId}`;
  let pseudonym = pseudonyms.get(key);
  if (pseudonym === undefined) {
    pseudonym = `anon-${crypto.createHmac('sha256', secret).update(actorId).digest('hex').slice(0, 16)}`;
    if (pseudonyms.size >= PSEUDONYMS_KEPT) pseudonyms.clear();
    pseudonyms.set(key, pseudonym);
  }
  return pseudonym;
}

export interface ActorView {
  team: boolean;
  id(actorId: string): string;
  name(actorId: string, name: string): string;
}

export function actorView(ctx: FactoryContext): ActorView {
  const team = ctx.principal.permissions.has('sessions.read_team');
  const secret = ctx.gateway.anonSecret;
  return {
    team,
    id: (actorId) => (team ? actorId : pseudonymOf(secret, actorId)),
    name: (_actorId, name) => (team ? name : 'anonymous'),
  };
}

/** What other areas know about a page of sessions: PR outcomes (prs) and context verification (context). */
export interface Enrichment {
  prOutcomes: Map<string, PrOutcome[]>;
  verification: Map<string | null, 'verified' | 'unverified' | 'absent'>;
}

/** What enrich reads of a session's row. */
export type EnrichedRow = Pick<store.ListedRow, 'id' | 'repo' | 'branch' | 'pr_refs' | 'started_at' | 'commit_sha'>;

/**
 * PR outcomes and context verification of `rows`, from what the list's one read brought of them (`read`,
 * list-store.ts readList) or read here.
 */
export async function enrich(ctx: FactoryContext, rows: readonly EnrichedRow[], read?: PageReads): Promise<Enrichment> {
  if (!rows.length) return { prOutcomes: new Map(), verification: new Map() };
  const shas = rows.map((r) => r.commit_sha);
  const [prOutcomes, verification] = await Promise.all([
    prOutcomesForRows(ctx, rows, read?.links),
    read ? verificationsOf(shas, read.syncedShas) : contextVerifications(ctx, shas),
  ]);
  return { prOutcomes, verification };
}

export function toWire(row: store.ListedRow, actors: ActorView, extra: Enrichment): SessionWire {
  return { ...listEntryOf(row), ...listedHead(row, actors, extra) };
}

/** A listed session's fields read at request time; its list entry (list-entry.ts) holds the rest. */
type ListedHead = Pick<SessionWire, 'actorId' | 'actorName' | 'contextSourceVerification' | 'prOutcomes'>;

function listedHead(
  row: Pick<store.ListedRow, 'id' | 'actor_id' | 'actor_name' | 'commit_sha'>,
  actors: ActorView,
  extra: Enrichment,
): ListedHead {
  return {
    actorId: actors.id(row.actor_id),
    actorName: actors.name(row.actor_id, row.actor_name),
    contextSourceVerification: contextVerificationOf(row.commit_sha, extra),
    prOutcomes: extra.prOutcomes.get(row.id) ?? [],
  };
}

/**
 * listedHead as a JSON object's text: spliced with the row's stored list entry it makes the object toWire makes
 * (in another key order, which JSON does not fix).
 */
export function listedHeadJson(
  row: Pick<store.ListedRow, 'id' | 'actor_id' | 'actor_name' | 'commit_sha'>,
  actors: ActorView,
  extra: Enrichment,
): string {
  return JSON.stringify(listedHead(row, actors, extra));
}

/** What a session's context verification reads as, from what enrich found. */
function contextVerificationOf(commitSha: string | null, extra: Enrichment): SessionWire['contextSourceVerification'] {
  return extra.verification.get(commitSha) ?? (commitSha ? 'unverified' : 'absent');
}
