// Findings: what an agent found wrong about a change under review (about: change) or about a rule it ran
// on (about: rule), recorded on a work item. Append-only; read oldest first.
import crypto from 'node:crypto';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import { getWorkItem, listLinkedPullRequests } from '../work-items/service.js';
import type { Finding, FindingInput } from './schema.js';
import * as store from './store.js';

function toWire(r: store.FindingRow): Finding {
  return {
    id: r.id,
    workItemId: r.work_item_id,
    source: r.source,
    about: r.about,
    severity: r.severity,
    title: r.title,
    body: r.body,
    path: r.path,
    line: r.line === null ? null : Number(r.line),
    rule: r.rule,
    prNumber: r.pr_number === null ? null : Number(r.pr_number),
    createdAt: new Date(Number(r.created_at)).toISOString(),
  };
}

export async function recordFinding(ctx: FactoryContext, idOrNumber: string, input: FindingInput): Promise<Finding> {
  if (input.about === 'rule' && input.rule === undefined) {
    throw apiError('invalid_request_body', 'A finding about a rule names the rule.', {
      details: [{ path: 'rule', message: 'is required when about is "rule"' }],
    });
  }
  if (input.line !== undefined && input.path === undefined) {
    throw apiError('invalid_request_body', 'A line needs the path it is in.', {
      details: [{ path: 'path', message: 'is required when line is given' }],
    });
  }
  const item = await getWorkItem(ctx, idOrNumber);
  if (item.withdrawn) throw apiError('work_item_withdrawn', 'The work item is withdrawn; findings cannot be added.');
  const row: store.FindingRow = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    app_id: ctx.appId,
    work_item_id: item.id,
    source: input.source,
    about: input.about,
    severity: input.severity,
    title: input.title,
    body: input.body ?? null,
    path: input.path ?? null,
    line: input.line ?? null,
    rule: input.rule ?? null,
    pr_number: input.prNumber ?? null,
    created_at: ctx.clock.now(),
  };
  await store.insertFinding(ctx.db, row);
  const linked = await listLinkedPullRequests(ctx, item.id);
  await schedulePrComments(
    ctx,
    ctx.appId,
    linked.filter((pr) => row.pr_number === null || pr.number === row.pr_number),
  );
  return toWire(row);
}

export async function listFindings(
  ctx: FactoryContext,
  idOrNumber: string,
  page: { limit: number; offset: number },
): Promise<{ findings: Finding[]; total: number }> {
  const item = await getWorkItem(ctx, idOrNumber);
  const [rows, total] = await Promise.all([
    store.listFindings(ctx.db, ctx.appId, item.id, page.limit, page.offset),
    store.countFindings(ctx.db, ctx.appId, item.id),
  ]);
  return { findings: rows.map(toWire), total };
}
