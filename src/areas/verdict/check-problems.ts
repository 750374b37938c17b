// The `Attest evidence` check run's problems as the factory's settings read shows them (`pr_check_problem`):
// the latest pull request whose check run could not be written, until a later run writes one.
import type { Db } from '../../db/connection.js';
import type { PrCommentProblem } from '../pr-comments/schema.js';

export async function latestCheckProblems(db: Db, appIds: readonly string[]): Promise<Map<string, PrCommentProblem>> {
  const out = new Map<string, PrCommentProblem>();
  if (appIds.length === 0) return out;
  const rows = await db
    .selectFrom('pr_comment_jobs')
    .select(['app_id', 'repository', 'number', 'check_error_code', 'check_error_message', 'check_error_at'])
    .where('app_id', 'in', [...appIds])
    .where('check_error_code', 'is not', null)
    .orderBy('check_error_at', 'desc')
    .execute();
  for (const r of rows) {
    if (out.has(r.app_id) || r.check_error_code === null || r.check_error_at === null) continue;
    out.set(r.app_id, {
      code: r.check_error_code,
      message: r.check_error_message ?? '',
      repository: r.repository,
      number: Number(r.number),
      at: new Date(Number(r.check_error_at)).toISOString(),
    });
  }
  return out;
}
