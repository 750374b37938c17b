// `verdict` and `flagged` on the PR read and on GET /v1/prs/outcomes, with its `verdict=` filter (API.md §11).
// The PR read evaluates now (the verdict route's evaluation, stored when it changed), from what is stored of
// GitHub: the PR's job reads GitHub, a read makes no GitHub call. The list shows each PR's latest stored
// evaluation — made by the PR job, the PR read or the verdict route — and evaluates the PRs that have none yet,
// once, so every row carries a verdict.
import { type Verdict, VERDICTS } from '../../verify/index.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import type { OutcomesQuery } from '../prs/schema.js';
import { listOutcomes, type PrDetailWire, type PrOutcomeWire } from '../prs/service.js';
import { pullRequestVerdict } from './service.js';
import * as store from './store.js';

export interface VerdictFields {
  verdict: Verdict;
  flagged: number;
}

export async function pullRequestWithVerdict(
  ctx: FactoryContext,
  owner: string,
  repo: string,
  number: number,
): Promise<PrDetailWire & VerdictFields> {
  const v = await pullRequestVerdict(ctx, owner, repo, number, { fetch: false });
  return { ...v.detail, verdict: v.wire.verdict, flagged: v.wire.flagged };
}

/** The comma-separated `verdict=` filter; 400 invalid_query for a value that is not a verdict. */
export function parseVerdictFilter(raw: string | undefined): Set<Verdict> | undefined {
  if (raw === undefined) return undefined;
  const out = new Set<Verdict>();
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (!(VERDICTS as readonly string[]).includes(part)) {
      throw apiError('invalid_query_params', `verdict must be a comma-separated list of ${VERDICTS.join(', ')}.`, {
        details: [{ path: 'verdict', message: `unknown verdict "${part}"` }],
      });
    }
    out.add(part as Verdict);
  }
  return out;
}

export async function outcomesWithVerdicts(
  ctx: FactoryContext,
  query: OutcomesQuery & { verdict?: Set<Verdict> },
): Promise<{ data: Array<PrOutcomeWire & VerdictFields>; total: number }> {
  const all = await listOutcomes(ctx, { ...query, limit: Number.MAX_SAFE_INTEGER, offset: 0 });
  const latest = await store.latestEvaluations(ctx.db, ctx.appId);
  const rows: Array<PrOutcomeWire & VerdictFields> = [];
  for (const o of all.data) {
    let v = latest.get(`${o.repository}#${o.number}`);
    if (!v) {
      const [owner, name] = o.repository.split('/') as [string, string];
      const made = await pullRequestVerdict(ctx, owner, name, o.number, { fetch: false });
      v = { verdict: made.wire.verdict, flagged: made.wire.flagged };
    }
    const verdict = v.verdict as Verdict;
    if (query.verdict && !query.verdict.has(verdict)) continue;
    rows.push({ ...o, verdict, flagged: Number(v.flagged) });
  }
  return { total: rows.length, data: rows.slice(query.offset, query.offset + query.limit) };
}
