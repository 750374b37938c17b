// Budgets: CRUD, the current period's spend (from the sessions' stored costs, as the metrics count them), and
// the evaluation that turns a threshold crossing or a forecast past the amount into a notice. A notice is
// kept once per budget, period, kind and threshold by a unique key (budget_notices), and its event, whose id
// is derived from that key, is queued to the budget's channels once (deliveries are unique per event and
// channel): two replicas or a re-sync cannot send it twice, and a crash cannot keep a notice unsent.
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { FactoryContext, Gateway } from '../../server/context.js';
import { apiError, notFound } from '../../server/errors.js';
import { enqueueEvent, existingChannelIds } from '../notifications/service.js';
import type { BudgetNoticeData, NotificationEvent } from '../notifications/schema.js';
import { dayEnds, isTimeZone, periodAt, type Period } from './period.js';
import type { Budget, BudgetInput, BudgetPatch, BudgetPeriod, BudgetScope, BudgetStatus } from './schema.js';
import * as store from './store.js';

export const DEFAULT_THRESHOLDS = [50, 80, 100];
/** A factory's budgets are evaluated again at least this often even without new sessions (forecasts, late commits). */
export const RECHECK_MS = 60_000;
const TOP = 5;

const usd = (micros: number) => Math.round(micros) / 1_000_000;
const iso = (ms: number) => new Date(Number(ms)).toISOString();

function scopeOf(row: store.BudgetRow): BudgetScope {
  if (row.scope_kind === 'actor') return { kind: 'actor', actorId: row.scope_value };
  if (row.scope_kind === 'repository') return { kind: 'repository', repository: row.scope_value };
  if (row.scope_kind === 'attribute') {
    const [key, value] = JSON.parse(row.scope_value) as [string, string];
    return { kind: 'attribute', key, value };
  }
  return { kind: 'factory' };
}

/** The scope's value as a notice shows it: the actor, the repository, `key=value`; null for the factory. */
function scopeText(row: store.BudgetRow): string | null {
  const scope = scopeOf(row);
  if (scope.kind === 'attribute') return `${scope.key}=${scope.value}`;
  return scope.kind === 'factory' ? null : row.scope_value;
}

function spendScope(row: store.BudgetRow): store.SpendScope {
  return { appId: row.app_id, kind: row.scope_kind, value: row.scope_value };
}

function scopeColumns(scope: BudgetScope): { scope_kind: string; scope_value: string } {
  if (scope.kind === 'actor') return { scope_kind: 'actor', scope_value: scope.actorId };
  if (scope.kind === 'repository') return { scope_kind: 'repository', scope_value: scope.repository.toLowerCase() };
  // Both parts in one column, unambiguously (a key or a value may hold any character).
  if (scope.kind === 'attribute')
    return { scope_kind: 'attribute', scope_value: JSON.stringify([scope.key, scope.value]) };
  return { scope_kind: 'factory', scope_value: '' };
}

/** Spend projected to the period's end at the rate so far; null until a tenth of the period has passed. */
export function forecastMicros(spend: number, p: Period, now: number): number | null {
  const elapsed = Math.min(now, p.end) - p.start;
  if (elapsed * 10 < p.end - p.start) return null;
  return Math.round((spend * (p.end - p.start)) / elapsed);
}

async function statusOf(db: Db, row: store.BudgetRow, now: number): Promise<BudgetStatus> {
  const p = periodAt(now, row.period as BudgetPeriod, row.time_zone);
  const days = dayEnds(p.start, Math.min(p.end, Math.max(now, p.start + 1)), row.time_zone);
  const ends = [...days.map(([, end]) => end), p.end];
  const sums = await store.cumulativeSpend(db, spendScope(row), p.start, ends);
  const spend = sums[sums.length - 1] ?? 0;
  const forecast = forecastMicros(spend, p, now);
  return {
    periodStart: iso(p.start),
    periodEnd: iso(p.end),
    spendUsd: usd(spend),
    percent: Math.round((spend / Number(row.amount_micros)) * 10_000) / 100,
    forecastUsd: forecast === null ? null : usd(forecast),
    burn: days.map(([day], i) => ({ day, spendUsd: usd(sums[i] ?? 0) })),
  };
}

async function wire(db: Db, row: store.BudgetRow, now: number): Promise<Budget> {
  return {
    id: row.id,
    name: row.name,
    scope: scopeOf(row),
    amountUsd: usd(Number(row.amount_micros)),
    period: row.period as BudgetPeriod,
    timeZone: row.time_zone,
    thresholds: JSON.parse(row.thresholds) as number[],
    notify: JSON.parse(row.notify) as string[],
    status: await statusOf(db, row, now),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

async function checkInput(ctx: FactoryContext, input: BudgetPatch): Promise<void> {
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    throw apiError('invalid_time_zone', `"${input.timeZone}" is not an IANA time zone name (e.g. Europe/Berlin).`);
  if (input.notify?.length) {
    const known = await existingChannelIds(ctx, input.notify);
    const unknown = input.notify.find((id) => !known.has(id));
    if (unknown)
      throw apiError('unknown_notification_channel', 'The factory has no notification channel with this id.', {
        channelId: unknown,
      });
  }
}

const thresholdsOf = (t: readonly number[]) => [...new Set(t)].sort((a, b) => a - b);

export async function createBudget(ctx: FactoryContext, input: BudgetInput): Promise<Budget> {
  await checkInput(ctx, input);
  const now = ctx.clock.now();
  const row: store.BudgetRow = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    app_id: ctx.appId,
    name: input.name,
    ...scopeColumns(input.scope),
    amount_micros: Math.round(input.amountUsd * 1_000_000),
    period: input.period,
    time_zone: input.timeZone ?? 'UTC',
    thresholds: JSON.stringify(thresholdsOf(input.thresholds ?? DEFAULT_THRESHOLDS)),
    notify: JSON.stringify([...new Set(input.notify ?? [])]),
    created_at: now,
    updated_at: now,
  };
  await store.insertBudget(ctx.db, row);
  await store.invalidateEvaluation(ctx.db, ctx.appId);
  return wire(ctx.db, row, now);
}

export async function listBudgets(ctx: FactoryContext): Promise<Budget[]> {
  const now = ctx.clock.now();
  return Promise.all((await store.listBudgets(ctx.db, ctx.appId)).map((r) => wire(ctx.db, r, now)));
}

async function rowOf(ctx: FactoryContext, id: string): Promise<store.BudgetRow> {
  const row = await store.findBudget(ctx.db, ctx.appId, id);
  if (!row) throw notFound('budget_not_found', 'No such budget in this factory.');
  return row;
}

export async function getBudget(ctx: FactoryContext, id: string): Promise<Budget> {
  return wire(ctx.db, await rowOf(ctx, id), ctx.clock.now());
}

export async function updateBudget(ctx: FactoryContext, id: string, patch: BudgetPatch): Promise<Budget> {
  await rowOf(ctx, id);
  await checkInput(ctx, patch);
  await store.updateBudget(ctx.db, ctx.appId, id, {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.scope !== undefined ? scopeColumns(patch.scope) : {}),
    ...(patch.amountUsd !== undefined ? { amount_micros: Math.round(patch.amountUsd * 1_000_000) } : {}),
    ...(patch.period !== undefined ? { period: patch.period } : {}),
    ...(patch.timeZone !== undefined ? { time_zone: patch.timeZone } : {}),
    ...(patch.thresholds !== undefined ? { thresholds: JSON.stringify(thresholdsOf(patch.thresholds)) } : {}),
    ...(patch.notify !== undefined ? { notify: JSON.stringify([...new Set(patch.notify)]) } : {}),
    updated_at: ctx.clock.now(),
  });
  await store.invalidateEvaluation(ctx.db, ctx.appId);
  return getBudget(ctx, id);
}

export async function deleteBudget(ctx: FactoryContext, id: string): Promise<void> {
  if (!(await store.deleteBudget(ctx.db, ctx.appId, id)))
    throw notFound('budget_not_found', 'No such budget in this factory.');
}

async function noticeData(
  gateway: Gateway,
  row: store.BudgetRow,
  p: Period,
  spend: number,
  threshold: number,
  forecast: number | null,
  projection: boolean,
): Promise<BudgetNoticeData> {
  const s = spendScope(row);
  const [sessions, actors] = await Promise.all([
    store.topSessions(gateway.db, s, p.start, p.end, TOP),
    store.topActors(gateway.db, s, p.start, p.end, TOP),
  ]);
  const amount = Number(row.amount_micros);
  const shown = projection ? (forecast ?? spend) : spend;
  return {
    budget: {
      id: row.id,
      name: row.name,
      scope: { kind: row.scope_kind, value: scopeText(row) },
      amountUsd: usd(amount),
      period: row.period,
      timeZone: row.time_zone,
    },
    period: { start: iso(p.start), end: iso(p.end), key: p.key },
    spendUsd: usd(spend),
    percent: Math.round((shown / amount) * 10_000) / 100,
    threshold,
    forecastUsd: forecast === null ? null : usd(forecast),
    projection,
    topSessions: sessions.map((x) => ({
      traceId: x.id,
      title: x.title,
      actorName: x.actor_name,
      costUsd: usd(Number(x.cost_micros)),
    })),
    topActors: actors.map((a) => ({ actorId: a.actor_id, actorName: a.actor_name, costUsd: usd(a.cost_micros) })),
    url: `${gateway.config.publicUrl}/f/${row.app_id}/budgets`,
  };
}

/** The same notice always has the same event id (the receiver's idempotency key too). */
function eventIdOf(budgetId: string, periodKey: string, c: Candidate): string {
  const h = crypto.createHash('sha256').update(`${budgetId}|${periodKey}|${c.kind}|${c.threshold}`).digest('hex');
  return `evt_${h.slice(0, 32)}`;
}

interface Candidate {
  kind: 'threshold' | 'forecast';
  threshold: number;
}

/** Evaluate one budget at `now`: keep and queue each new notice. Returns how many notices were kept. */
export async function evaluateBudget(
  gateway: Gateway,
  row: store.BudgetRow,
  now: number,
  spends: Map<string, Promise<number[]>> = new Map(),
): Promise<number> {
  const p = periodAt(now, row.period as BudgetPeriod, row.time_zone);
  // Budgets over the same scope and period share one spend query within a run.
  const key = `${row.scope_kind}|${row.scope_value}|${p.start}|${p.end}`;
  let spendOf = spends.get(key);
  if (!spendOf) {
    spendOf = store.cumulativeSpend(gateway.db, spendScope(row), p.start, [p.end]);
    spends.set(key, spendOf);
  }
  const [spend = 0] = await spendOf;
  const amount = Number(row.amount_micros);
  const thresholds = JSON.parse(row.thresholds) as number[];
  const crossed: Candidate[] = thresholds
    .filter((t) => spend * 100 >= t * amount)
    .map((t) => ({ kind: 'threshold', threshold: t }));
  const forecast = forecastMicros(spend, p, now);
  const candidates = [...crossed];
  if (forecast !== null && forecast > amount && spend < amount) candidates.push({ kind: 'forecast', threshold: 100 });
  if (candidates.length === 0) return 0;
  const had = await store.noticesOf(gateway.db, row.id, p.key);
  const fresh = candidates.filter((c) => !had.has(`${c.kind}:${c.threshold}`));
  if (fresh.length === 0) return 0;

  // One message per kind: the highest threshold newly crossed (a jump past 50 and 80 at once says 80).
  const send = new Map<Candidate['kind'], { candidate: Candidate; data: BudgetNoticeData }>();
  for (const kind of ['threshold', 'forecast'] as const) {
    const top = fresh.filter((c) => c.kind === kind).sort((a, b) => b.threshold - a.threshold)[0];
    if (top)
      send.set(kind, {
        candidate: top,
        data: await noticeData(gateway, row, p, spend, top.threshold, forecast, kind === 'forecast'),
      });
  }
  const channels = JSON.parse(row.notify) as string[];
  let kept = 0;
  // No transaction: the event id is derived from what it announces, so its deliveries (unique per event and
  // channel) are queued at most once however often this runs, and they are queued before the notice is kept:
  // a crash in between only makes the next evaluation queue nothing new and keep the notice.
  for (const c of fresh) {
    const message = send.get(c.kind);
    if (message?.candidate === c) {
      const event: NotificationEvent = {
        id: eventIdOf(row.id, p.key, c),
        type: c.kind === 'forecast' ? 'budget.forecast' : 'budget.threshold',
        version: 1,
        createdAt: iso(now),
        appId: row.app_id,
        data: message.data,
      };
      await enqueueEvent(gateway.db, { orgId: row.org_id, appId: row.app_id }, event, channels, now);
    }
    const inserted = await store.insertNotice(gateway.db, {
      id: crypto.randomUUID(),
      app_id: row.app_id,
      budget_id: row.id,
      period_key: p.key,
      kind: c.kind,
      threshold: c.threshold,
      spend_micros: spend,
      created_at: now,
    });
    if (inserted) kept++;
  }
  return kept;
}

/**
 * Evaluate the budgets of every factory whose sessions changed since its last evaluation (or that was last
 * evaluated RECHECK_MS ago). Runs in the job worker, off the sync path.
 */
export async function evaluateChangedBudgets(gateway: Gateway, log: FastifyBaseLogger): Promise<number> {
  let kept = 0;
  for (const f of await store.factoriesWithBudgets(gateway.db)) {
    const now = gateway.clock.now();
    const since = f.watermark === null ? 0 : Number(f.watermark);
    const changes = await store.sessionChanges(gateway.db, f.app_id, since);
    const unchanged =
      f.evaluated_at !== null &&
      (changes.latest === null || changes.latest <= since) &&
      changes.count === Number(f.ties) &&
      now - Number(f.evaluated_at) < RECHECK_MS;
    if (unchanged) continue;
    const spends = new Map<string, Promise<number[]>>();
    for (const row of await store.listBudgets(gateway.db, f.app_id)) {
      try {
        kept += await evaluateBudget(gateway, row, now, spends);
      } catch (err) {
        log.error({ err, budget: row.id }, 'budget evaluation failed');
      }
    }
    const watermark = Math.max(since, changes.latest ?? 0);
    const ties =
      watermark === since ? changes.count : (await store.sessionChanges(gateway.db, f.app_id, watermark)).count;
    await store.setEvaluated(gateway.db, f.app_id, watermark, ties, now);
  }
  return kept;
}
