// The `Attest evidence` check run (App setting `pr_check`, docs/github-app.md §7) on the PR's head commit:
// success when clean, neutral for review (and for a PR with no agent session, so a branch protection rule
// that requires the check never holds a person's PR), failure when a block-level row did not pass;
// in progress while the linked sessions are still expected. The PR job (pr-comments/worker.ts) writes it
// with the comment. A new head commit gets a new check run; an unchanged one is not written again.
import crypto from 'node:crypto';
import type { InstallationClient } from '../../codehost/github.js';
import { createCheckRun, updateCheckRun, type CheckRunInput } from '../../codehost/github-verdict.js';
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import type { JobRow } from '../pr-comments/store.js';
import { renderVerdict, verdictHeadline } from './render.js';
import type { PrVerdict } from './service.js';

export const CHECK_NAME = 'Attest evidence';
/** GitHub's limit of a check run's summary. */
const SUMMARY_LIMIT = 65_535;

export type CheckOutcome = 'written' | 'unchanged' | 'no_head' | 'missing_permission';

export function conclusionOf(v: PrVerdict): CheckRunInput['conclusion'] {
  if (v.wire.verdict === 'waiting') return null;
  if (v.blocked) return 'failure';
  return v.wire.verdict === 'clean' ? 'success' : 'neutral';
}

async function recordCheck(db: Db, jobId: string, set: Partial<JobRow>): Promise<void> {
  await db.updateTable('pr_comment_jobs').set(set).where('id', '=', jobId).execute();
}

/** Create or update the check run of the PR's head commit; a missing `checks: write` is recorded on the job. */
export async function syncCheckRun(
  ctx: FactoryContext,
  job: JobRow,
  client: InstallationClient,
  owner: string,
  name: string,
  v: PrVerdict,
  prPageUrl: string,
): Promise<CheckOutcome> {
  const headSha = v.wire.headSha;
  if (headSha === null) return 'no_head';
  let summary = renderVerdict(v.wire, ctx.config.publicUrl, ctx.appId).join('\n');
  if (summary.length > SUMMARY_LIMIT)
    summary = `${summary.slice(0, SUMMARY_LIMIT - 80)}\n\n… the rest is on the Attest dashboard.`;
  const input: CheckRunInput = {
    name: CHECK_NAME,
    headSha,
    conclusion: conclusionOf(v),
    title: verdictHeadline(v.wire),
    summary,
    detailsUrl: prPageUrl,
    externalId: `${v.wire.repository}#${v.wire.number}`,
  };
  const sha256 = crypto
    .createHash('sha256')
    .update(JSON.stringify([input.headSha, input.conclusion, input.title, input.summary, input.detailsUrl]))
    .digest('hex');
  const sameHead = job.check_head_sha === headSha && job.check_run_id !== null;
  if (sameHead && job.check_sha256 === sha256) return 'unchanged';
  let written = sameHead ? await updateCheckRun(client, owner, name, Number(job.check_run_id), input) : null;
  if (written === null || written === 'not_found') written = await createCheckRun(client, owner, name, input);
  const now = ctx.clock.now();
  if (written === 'not_accessible' || written === 'not_found') {
    await recordCheck(ctx.db, job.id, {
      check_error_code: 'missing_permission',
      check_error_message:
        `The GitHub App may not write check runs on ${owner}/${name}: its installation needs checks write. Accept ` +
        `the permission on the installation's page.`,
      check_error_at: now,
    });
    return 'missing_permission';
  }
  await recordCheck(ctx.db, job.id, {
    check_run_id: written.id,
    check_head_sha: headSha,
    check_sha256: sha256,
    check_url: written.url,
    check_error_code: null,
    check_error_message: null,
    check_error_at: null,
  });
  return 'written';
}
