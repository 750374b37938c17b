// Factories (apps): the rules and the wire shape of spec part 2 (App), no HTTP.
import crypto from 'node:crypto';
import semver from 'semver';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../server/clock.js';
import type { Principal } from '../../server/auth/principal.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { ROLE_PERMISSIONS, isRole } from '../../server/permissions.js';
import { recordAudit } from '../../server/audit.js';
import type { PrCommentProblem } from '../pr-comments/schema.js';
import { latestProblems } from '../pr-comments/outbox.js';
import { latestCheckProblems } from '../verdict/check-problems.js';
import type {
  App,
  CreateAppInput,
  ListAppsQuery,
  MyFactory,
  PrCommentMode,
  Retention,
  RunnerUpdatesInput,
  UpdateAppInput,
} from './schema.js';
import * as store from './store.js';
import { VERSION } from '../../version.js';

/**
 * The runner version this gateway recommends to factories in `follow` mode: its own release (the CLI ships
 * in the same package, so a runner of this version speaks every route this gateway serves).
 */
export const RECOMMENDED_RUNNER_VERSION: string = VERSION;

export function appToWire(
  row: store.AppRow,
  problem: PrCommentProblem | null = null,
  checkProblem: PrCommentProblem | null = null,
): App {
  return {
    id: row.id,
    tenant_id: row.org_id,
    name: row.name,
    display_name: row.display_name,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    updated_at: new Date(row.updated_at).toISOString(),
    updated_by: row.updated_by,
    // follow: the gateway's recommendation (stored as null, so it moves with the gateway); pin: the stored version.
    runner_updates:
      row.runner_updates_mode === 'pin' && row.runner_updates_version !== null
        ? { mode: 'pin', version: row.runner_updates_version }
        : { mode: 'follow', version: RECOMMENDED_RUNNER_VERSION },
    pr_comment: row.pr_comment === 'on' ? 'on' : 'off',
    pr_comment_problem: problem,
    pr_check: row.pr_check === 'on' ? 'on' : 'off',
    pr_check_problem: checkProblem,
    retention: retentionOf(row),
  };
}

export async function createApp(
  db: Db,
  clock: Clock,
  principal: Principal | null,
  orgId: string,
  input: CreateAppInput,
): Promise<App> {
  const now = clock.now();
  const by = changedBy(principal);
  const row: store.AppRow = {
    id: crypto.randomUUID(),
    org_id: orgId,
    name: input.name.toLowerCase(),
    display_name: input.display_name ?? input.name,
    runner_updates_mode: 'follow',
    runner_updates_version: null,
    pr_comment: 'off',
    pr_check: 'off',
    retention_full_days: null,
    retention_redacted_days: null,
    retention_sessions_days: null,
    retention_artifacts_days: null,
    created_at: now,
    created_by: by,
    updated_at: now,
    updated_by: by,
    deleted_at: null,
  };
  try {
    await store.insertApp(db, row);
  } catch (err) {
    if (isUniqueViolation(err))
      throw apiError('duplicate_app_name', `A factory named "${input.name}" already exists in this organization.`);
    throw err;
  }
  await recordAudit(db, clock, {
    orgId,
    actionType: 'app.created',
    actor: principal,
    targetType: 'app',
    targetId: row.id,
    targetIdentifier: row.name,
  });
  return appToWire(row);
}

/** Who a change is recorded as (created_by / updated_by): the person, else the credential, else the gateway. */
function changedBy(principal: Principal | null): string {
  return principal?.userId ?? principal?.credentialId ?? 'system';
}

async function requireLiveApp(ctx: FactoryContext, appId: string): Promise<store.AppRow> {
  const row = await store.findLiveApp(ctx.db, ctx.orgId, appId.toLowerCase());
  if (!row) throw apiError('app_not_found', 'No such factory in this organization.');
  return row;
}

/**
 * The factories the caller may see: a login token sees every live factory of the org of the factory it acts
 * on (its owner is a member there); a factory key is bound to one factory and sees only that one.
 */
export async function listApps(ctx: FactoryContext, q: ListAppsQuery = {}): Promise<App[]> {
  let rows =
    ctx.principal.kind !== 'login_token' && ctx.principal.kind !== 'dashboard_session'
      ? [await store.findLiveApp(ctx.db, ctx.orgId, ctx.appId)].filter((r): r is store.AppRow => r !== undefined)
      : await store.listLiveApps(ctx.db, ctx.orgId);
  // An org holds few factories: filtered and paged after the one scoped read.
  if (q.name !== undefined) rows = rows.filter((r) => r.name === q.name);
  const offset = q.offset ?? 0;
  rows = rows.slice(offset, q.limit === undefined ? undefined : offset + q.limit);
  const ids = rows.map((r) => r.id);
  const [problems, checkProblems] = await Promise.all([latestProblems(ctx.db, ids), latestCheckProblems(ctx.db, ids)]);
  return rows.map((r) => appToWire(r, problems.get(r.id) ?? null, checkProblems.get(r.id) ?? null));
}

async function wireWithProblem(ctx: FactoryContext, row: store.AppRow): Promise<App> {
  const [problems, checkProblems] = await Promise.all([
    latestProblems(ctx.db, [row.id]),
    latestCheckProblems(ctx.db, [row.id]),
  ]);
  return appToWire(row, problems.get(row.id) ?? null, checkProblems.get(row.id) ?? null);
}

/** The factory's `pr_check` setting, read when the PR job runs (off for a deleted factory). */
export async function prCheckModeOf(db: Db, orgId: string, appId: string): Promise<PrCommentMode> {
  const row = await store.findLiveApp(db, orgId, appId);
  return row?.pr_check === 'on' ? 'on' : 'off';
}

/** The factory's `pr_comment` setting, read when the comment worker runs (off for a deleted factory). */
export async function prCommentModeOf(db: Db, orgId: string, appId: string): Promise<PrCommentMode> {
  const row = await store.findLiveApp(db, orgId, appId);
  return row?.pr_comment === 'on' ? 'on' : 'off';
}

export async function getApp(ctx: FactoryContext, appId: string): Promise<App> {
  return wireWithProblem(ctx, await requireLiveApp(ctx, appId));
}

export async function createAppInOrg(ctx: FactoryContext, input: CreateAppInput): Promise<App> {
  return createApp(ctx.db, ctx.clock, ctx.principal, ctx.orgId, input);
}

const num = (v: number | null | undefined) => (v === null || v === undefined ? null : Number(v));

/** The factory's retention settings as the App carries them. */
export function retentionOf(row: store.AppRow): Retention {
  return {
    fullDays: num(row.retention_full_days),
    redactedDays: num(row.retention_redacted_days),
    sessionsDays: num(row.retention_sessions_days),
    artifactsDays: num(row.retention_artifacts_days),
  };
}

/** The columns of a retention change (fields left out keep their value); the steps must come in order. */
function retentionColumns(before: store.AppRow, input: Partial<Retention>): Partial<store.AppPatch> {
  const r = { ...retentionOf(before), ...input };
  const steps = [
    ['fullDays', r.fullDays],
    ['redactedDays', r.redactedDays],
    ['sessionsDays', r.sessionsDays],
  ] as const;
  for (let i = 0; i < steps.length; i++)
    for (let j = i + 1; j < steps.length; j++) {
      const [earlier, e] = steps[i]!;
      const [later, l] = steps[j]!;
      if (e !== null && l !== null && l < e)
        throw invalidBody(`retention.${later}`, `must not be less than ${earlier}`);
    }
  return {
    retention_full_days: r.fullDays,
    retention_redacted_days: r.redactedDays,
    retention_sessions_days: r.sessionsDays,
    retention_artifacts_days: r.artifactsDays,
  };
}

function invalidBody(path: string, message: string) {
  return apiError('invalid_request_body', `${path} ${message}.`, { details: [{ path, message }] });
}

/** `pin` needs a semantic version; `follow` tracks the gateway's recommendation and takes none. */
function runnerUpdatesColumns(input: RunnerUpdatesInput): {
  runner_updates_mode: string;
  runner_updates_version: string | null;
} {
  const version = input.version ?? null;
  if (input.mode === 'follow') {
    if (version !== null) throw invalidBody('runner_updates.version', 'must be left out when mode is follow');
    return { runner_updates_mode: 'follow', runner_updates_version: null };
  }
  if (version === null) throw invalidBody('runner_updates.version', 'is required when mode is pin');
  const valid = semver.valid(version);
  if (!valid) throw invalidBody('runner_updates.version', 'must be a semantic version such as 1.4.2');
  return { runner_updates_mode: 'pin', runner_updates_version: valid };
}

export async function updateApp(ctx: FactoryContext, appId: string, input: UpdateAppInput): Promise<App> {
  const before = await requireLiveApp(ctx, appId);
  const now = ctx.clock.now();
  const patch: store.AppPatch = { updated_at: now, updated_by: changedBy(ctx.principal) };
  if (input.name !== undefined) patch.name = input.name.toLowerCase();
  if (input.display_name !== undefined) patch.display_name = input.display_name;
  if (input.runner_updates !== undefined) Object.assign(patch, runnerUpdatesColumns(input.runner_updates));
  if (input.pr_comment !== undefined) patch.pr_comment = input.pr_comment;
  if (input.pr_check !== undefined) patch.pr_check = input.pr_check;
  if (input.retention !== undefined) {
    // Retention deletes evidence on a schedule: changing it is the owners' alone, as deleting is.
    if (!ctx.principal.permissions.has('sessions.delete'))
      throw apiError('forbidden', 'Changing the retention needs the sessions.delete permission (owners).', {
        required_permission: 'sessions.delete',
      });
    Object.assign(patch, retentionColumns(before, input.retention));
  }
  try {
    await store.updateApp(ctx.db, ctx.orgId, before.id, patch);
  } catch (err) {
    if (isUniqueViolation(err))
      throw apiError(
        'duplicate_app_name',
        `A factory named "${patch.name ?? ''}" already exists in this organization.`,
      );
    throw err;
  }
  const after: store.AppRow = { ...before, ...patch };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of [
    'name',
    'display_name',
    'runner_updates_mode',
    'runner_updates_version',
    'pr_comment',
    'pr_check',
    'retention_full_days',
    'retention_redacted_days',
    'retention_sessions_days',
    'retention_artifacts_days',
  ] as const) {
    if (before[field] !== after[field]) changes[field] = { from: before[field], to: after[field] };
  }
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'app.updated',
    actor: ctx.principal,
    targetType: 'app',
    targetId: before.id,
    targetIdentifier: after.name,
    details: { changes },
  });
  return wireWithProblem(ctx, after);
}

/**
 * Tombstone the factory: the row keeps its id (audit rows and other areas' data still point at it) but is
 * gone from every read, its name is free again, and every credential bound to it is revoked at once.
 */
export async function deleteApp(ctx: FactoryContext, appId: string): Promise<void> {
  const app = await requireLiveApp(ctx, appId);
  const now = ctx.clock.now();
  await store.tombstoneApp(ctx.db, ctx.orgId, app.id, now, changedBy(ctx.principal));
  const revoked = await store.revokeAppCredentials(ctx.db, app.id, now);
  ctx.gateway.auth.invalidate();
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'app.deleted',
    actor: ctx.principal,
    targetType: 'app',
    targetId: app.id,
    targetIdentifier: app.name,
    details: { revoked_credentials: Number(revoked.numUpdatedRows) },
  });
}

/** Every live factory a user can use, across the orgs they belong to, with the org and their role there. */
export async function factoriesOfUser(db: Db, userId: string): Promise<MyFactory[]> {
  return (await store.listFactoriesOfUser(db, userId)).map((r) => ({
    id: r.id,
    name: r.name,
    display_name: r.display_name,
    org: { id: r.org_id, name: r.org_name },
    role: r.role,
    permissions: isRole(r.role) ? [...ROLE_PERMISSIONS[r.role]] : [],
  }));
}

export interface FactoryRetention {
  orgId: string;
  appId: string;
  retention: Retention;
}

/** Every live factory with a retention setting (the retention sweep's list). */
export async function factoriesWithRetention(db: Db): Promise<FactoryRetention[]> {
  return (await store.appsWithRetention(db)).map((row) => ({
    orgId: row.org_id,
    appId: row.id,
    retention: retentionOf(row),
  }));
}
