// Erasing a person from an org (issue 42, POST /v1/orgs/{org}/erasures): across every factory of the org, the
// person's identity and their sessions' text go; their sessions stay as anonymous metrics under a pseudonym, so
// costs, rollups and PR totals stay exact. docs/security.md says what it reaches, what stays and why.
import crypto from 'node:crypto';
import { recordAudit } from '../../server/audit.js';
import { apiError } from '../../server/errors.js';
import type { OrgContext } from '../../server/context.js';
import { dropUnheldBlobs } from '../lifecycle/service.js';
import { mergeActorRollups } from '../metrics/erase.js';
import { eraseTelemetry } from '../otlp/erase.js';
import { ERASED_ACTOR_NAME, eraseActorSessions } from '../sessions/erase.js';
import * as store from './erasure-store.js';
import type { Static } from 'typebox';
import type { Erasure, ErasureBody } from './schema.js';
import * as orgStore from './store.js';

/** Exactly one of `email` and `actorId`: the route's schema holds that. */
export type ErasureRequest = Static<typeof ErasureBody>;

/** What replaces the person's email and name in free text (notification bodies). */
const SCRUBBED = '[erased]';

interface Person {
  userId: string | null;
  email: string | null;
  name: string | null;
  /** Every actor id their sessions and telemetry may carry: their user id, their email, the id asked for. */
  actorIds: string[];
}

async function resolvePerson(ctx: OrgContext, req: ErasureRequest): Promise<Person> {
  if (req.email !== undefined) {
    const email = req.email.toLowerCase();
    const user = await orgStore.findUserByEmail(ctx.db, email);
    return {
      userId: user?.id ?? null,
      email,
      name: user?.name ?? null,
      actorIds: user ? [user.id, email] : [email],
    };
  }
  const id = req.actorId ?? '';
  const user = await orgStore.findUserById(ctx.db, id);
  if (user) return { userId: user.id, email: user.email, name: user.name, actorIds: [user.id, user.email] };
  if (id.includes('@')) {
    const email = id.toLowerCase();
    const byEmail = await orgStore.findUserByEmail(ctx.db, email);
    if (byEmail) return { userId: byEmail.id, email, name: byEmail.name, actorIds: [byEmail.id, email] };
    return { userId: null, email, name: null, actorIds: [email, id] };
  }
  return { userId: null, email: null, name: null, actorIds: [id] };
}

/**
 * The opaque reference to the person in this org: a keyed hash (the gateway's pseudonym secret) of their email,
 * else of the id asked for. Per org, so two orgs' records cannot be joined on it; without the secret it names
 * no one. Their sessions' new actor id is derived from it, so a second erasure lands on the same pseudonym.
 */
function referenceOf(ctx: OrgContext, person: Person): string {
  const subject = person.email ?? person.actorIds[0]!;
  return crypto.createHmac('sha256', ctx.gateway.anonSecret).update(`erasure\0${ctx.orgId}\0${subject}`).digest('hex');
}

export async function erasePerson(ctx: OrgContext, req: ErasureRequest): Promise<Erasure> {
  const person = await resolvePerson(ctx, req);
  const ref = referenceOf(ctx, person);
  const pseudonym = `erased:${ref.slice(0, 32)}`;
  const report: Erasure = {
    subject: ref,
    factories: 0,
    sessions: 0,
    telemetryEvents: 0,
    rollupRows: 0,
    blobsRemoved: 0,
    credentialsDeleted: 0,
    credentialsRenamed: 0,
    invitations: 0,
    membership: false,
    account: false,
    auditIdentities: 0,
    notificationDeliveries: 0,
    budgets: 0,
    erasedAt: new Date(ctx.clock.now()).toISOString(),
  };

  const membership = person.userId ? await orgStore.findMembership(ctx.db, ctx.orgId, person.userId) : undefined;
  if (membership?.role === 'owner' && Number((await orgStore.countOwners(ctx.db, ctx.orgId)).n) <= 1)
    throw apiError('last_owner', 'The organization must keep at least one owner; make another owner first.');

  for (const { id: appId } of await store.factoriesOfOrg(ctx.db, ctx.orgId)) {
    report.factories++;
    const sessions = await store.sessionsOfActors(ctx.db, appId, person.actorIds);
    const wctx = { orgId: ctx.orgId, appId, clock: ctx.clock, log: ctx.log };
    const erased = await eraseActorSessions(wctx, ctx.db, person.actorIds, pseudonym);
    report.sessions += erased.sessions;
    report.rollupRows += await ctx.db
      .transaction()
      .execute((trx) => mergeActorRollups(trx, appId, person.actorIds, pseudonym));
    const telemetry = await ctx.db.transaction().execute((trx) =>
      eraseTelemetry(
        trx,
        appId,
        {
          email: person.email,
          actorIds: person.actorIds,
          sessionKeys: sessions.map((s) => s.session_key),
          sessionIds: [...new Set(sessions.map((s) => s.session_id))],
        },
        pseudonym,
      ),
    );
    report.telemetryEvents += telemetry.events;
    report.rollupRows += telemetry.metricRows;
    report.blobsRemoved += await dropUnheldBlobs(ctx.db, ctx.gateway.blobs, erased.released, ctx.log);
  }

  const auditSubjects: string[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    report.budgets = await store.moveBudgets(trx, ctx.orgId, person.actorIds, pseudonym);
    const named = await store.keysNamingPerson(trx, ctx.orgId, person.email, person.name);
    await store.renameKeys(
      trx,
      named.map((k) => k.id),
    );
    report.credentialsRenamed = named.length;
    auditSubjects.push(...named.map((k) => `credential:${k.id}`));
    if (person.email) {
      report.invitations = await store.deleteInvitations(trx, ctx.orgId, person.email);
      auditSubjects.push(`email:${person.email}`);
    }
    const needles = [person.email, person.name && person.name.trim().length >= 3 ? person.name.trim() : null];
    report.notificationDeliveries = await store.scrubDeliveries(
      trx,
      ctx.orgId,
      needles.filter((n): n is string => !!n),
      SCRUBBED,
    );
    if (person.userId) {
      auditSubjects.push(`user:${person.userId}`);
      const elsewhere = (await store.otherMemberships(trx, ctx.orgId, person.userId)).length > 0;
      // The account goes with its last org: only when the person was a member here and nowhere else.
      const account = !elsewhere && membership !== undefined;
      const creds = await store.userCredentials(trx, ctx.orgId, person.userId, account);
      auditSubjects.push(...creds.map((c) => `credential:${c.id}`));
      await store.deleteCredentials(
        trx,
        creds.map((c) => c.id),
      );
      report.credentialsDeleted = creds.length;
      await store.deleteGrants(trx, account ? null : ctx.orgId, person.userId);
      if (membership) {
        await orgStore.deleteMembership(trx, ctx.orgId, person.userId);
        report.membership = true;
      }
      if (account) {
        await store.deleteAccount(trx, person.userId);
        report.account = true;
      }
    }
    report.auditIdentities = await store.deleteAuditIdentities(trx, ctx.orgId, auditSubjects);
  });
  // Their tokens, sessions and membership are gone: cached principals must not outlive them.
  ctx.gateway.auth.invalidate();

  const touched =
    report.sessions +
    report.telemetryEvents +
    report.rollupRows +
    report.blobsRemoved +
    report.credentialsDeleted +
    report.credentialsRenamed +
    report.invitations +
    report.auditIdentities +
    report.notificationDeliveries +
    report.budgets +
    (report.membership ? 1 : 0) +
    (report.account ? 1 : 0);
  if (touched === 0) {
    // Nothing left of them: a repeated erasure answers what the first one did.
    const earlier = await store.earlierErasure(ctx.db, ctx.orgId, ref);
    if (earlier) return JSON.parse(earlier.details) as Erasure;
  }
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'person.erased',
    actor: ctx.principal,
    targetType: 'person',
    targetId: ref,
    targetIdentifier: ERASED_ACTOR_NAME,
    details: report,
  });
  // A person erasing themselves is this row's actor: their pseudonym's mapping, just made again, goes too.
  if (person.userId && ctx.principal.userId === person.userId)
    await store.deleteAuditIdentities(ctx.db, ctx.orgId, auditSubjects);
  return report;
}
