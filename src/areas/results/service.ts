// Emitted results: pass/fail of a check run in the caller's own CI, with its run URL as proof, anchored
// to a pull request. Idempotent on clientEmitId per factory (API.md §6).
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { repositoryOfGitRepo } from '../artifacts/service.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import type { Check, CheckResult, EmitInput, EmittedResult } from './schema.js';
import * as store from './store.js';

export const CI_JSON_LIMIT = 4096;

function toWire(row: store.EmittedResultRow): EmittedResult {
  return {
    id: row.id,
    clientEmitId: row.client_emit_id,
    name: row.name,
    result: row.result as CheckResult,
    link: row.link,
    repository: row.repository,
    prNumber: Number(row.pr_number),
    headSha: row.head_sha,
    ci: row.ci === null ? null : (JSON.parse(row.ci) as Record<string, unknown> | boolean),
    emittedAt: new Date(Number(row.emitted_at)).toISOString(),
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

/** A link is proof a person can open: an absolute http or https URL with a host. */
export function isHttpLink(link: string): boolean {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

function bodyError(path: string, message: string) {
  return apiError('invalid_request_body', `Invalid body: ${path} ${message}`, { details: [{ path, message }] });
}

/** The fields a retry must repeat; anything else under the same clientEmitId is a conflict. */
function sameEmit(row: store.EmittedResultRow, candidate: store.EmittedResultRow): boolean {
  return (
    row.name === candidate.name &&
    row.result === candidate.result &&
    row.link === candidate.link &&
    row.repository === candidate.repository &&
    Number(row.pr_number) === candidate.pr_number &&
    Number(row.emitted_at) === candidate.emitted_at &&
    row.head_sha === candidate.head_sha
  );
}

function retryOf(
  stored: store.EmittedResultRow,
  candidate: store.EmittedResultRow,
): { result: EmittedResult; created: false } {
  if (!sameEmit(stored, candidate)) {
    throw apiError('conflict', `clientEmitId "${stored.client_emit_id}" was already used for a different result.`, {
      resultId: stored.id,
    });
  }
  return { result: toWire(stored), created: false };
}

export async function emitResult(
  ctx: FactoryContext,
  input: EmitInput,
): Promise<{ result: EmittedResult; created: boolean }> {
  const repository =
    input.repository ?? (input.gitRepo !== undefined ? repositoryOfGitRepo(input.gitRepo, 'emit.gitRepo') : undefined);
  if (repository === undefined)
    throw bodyError('emit.repository', 'is required (or emit.gitRepo, the normalized git remote)');
  if (!isHttpLink(input.link))
    throw apiError('invalid_link', 'emit.link must be an http or https URL (the run that produced the result).');
  const emittedAt = Date.parse(input.emittedAt);
  if (!Number.isFinite(emittedAt)) throw bodyError('emit.emittedAt', 'must be a date-time');
  const ci = input.ci === undefined ? null : JSON.stringify(input.ci);
  if (ci !== null && ci.length > CI_JSON_LIMIT)
    throw bodyError('emit.ci', `must be at most ${CI_JSON_LIMIT} characters of JSON`);
  const row: store.EmittedResultRow = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    app_id: ctx.appId,
    client_emit_id: input.clientEmitId,
    name: input.name,
    result: input.result,
    link: input.link,
    repository,
    pr_number: input.prNumber,
    head_sha: input.headSha?.toLowerCase() ?? null,
    ci,
    emitted_at: emittedAt,
    created_at: ctx.clock.now(),
  };
  const existing = await store.findByClientId(ctx.db, ctx.appId, input.clientEmitId);
  if (existing) return retryOf(existing, row);
  try {
    await store.insertResult(ctx.db, row);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const winner = await store.findByClientId(ctx.db, ctx.appId, input.clientEmitId);
    if (!winner) throw err;
    return retryOf(winner, row);
  }
  await schedulePrComments(ctx, ctx.appId, [{ repository: row.repository, number: row.pr_number }]);
  return { result: toWire(row), created: true };
}

/**
 * The checks of one pull request: for each check name its latest result (by emittedAt) with the earlier
 * ones in `history`, newest first. Checks whose latest result is newest come first; ties by name.
 */
export async function listChecks(ctx: FactoryContext, repository: string, prNumber: number): Promise<Check[]> {
  const rows = await store.listForPullRequest(ctx.db, ctx.appId, repository, prNumber);
  const byName = new Map<string, Check>();
  for (const row of rows) {
    const wire = toWire(row);
    const check = byName.get(row.name);
    if (check) check.history.push(wire);
    else byName.set(row.name, { ...wire, history: [] });
  }
  return [...byName.values()].sort((a, b) =>
    a.emittedAt === b.emittedAt ? a.name.localeCompare(b.name) : a.emittedAt < b.emittedAt ? 1 : -1,
  );
}
