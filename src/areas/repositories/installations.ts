// Binding GitHub App installations to factories (issue 19 item 11). A factory connects repositories only
// from an installation bound to it, and a binding is made in one of two ways:
// - the install link: a user of the factory who may connect repositories asks for the App's install URL
//   with a `state` the gateway signed for that factory and user (30 minutes, single use). GitHub sends the
//   browser back to the App's setup URL, GET /v1/github/setup?installation_id=&state=, which verifies the
//   state (signature, expiry, not spent: its digest is stored when used), checks that the issuing user may
//   still connect repositories there, asks GitHub whether the installation exists, and binds it. The
//   installation_id in that redirect is not signed by GitHub: the browser must also carry the issuing user's
//   dashboard session, and that user's GitHub sign-in token must reach the installation (GET
//   /user/installations), so nobody binds an installation they could not reach on GitHub themselves;
// - the operator: POST /v1/admin/apps/{appId}/installations with the admin token.
// Either undoes it: DELETE /v1/github/installations/{id} (the factory) or DELETE /v1/admin/apps/{appId}/
// installations/{id} (the operator), which also disconnects the repositories connected through it: they
// were connected on the binding's authority, and builds would otherwise keep writing through it.
// The state is signed, not stored, until it is spent: issuing a link writes nothing.
import crypto from 'node:crypto';
import { githubApp } from '../../codehost/github.js';
import type { FactoryContext, RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { deriveSecret } from '../../server/pepper.js';
import { digestOf } from '../../server/credentials.js';
import { ROLE_PERMISSIONS, isRole } from '../../server/permissions.js';
import * as authStore from '../../server/auth/store.js';
import type { Principal } from '../../server/auth/principal.js';
import { recordAudit } from '../../server/audit.js';
import { githubInstallationsOfUser } from '../sign-in/github.js';
import * as store from './store.js';
import type { Binding, InstallLink, Unbound } from './schema.js';

export const INSTALL_STATE_TTL_MS = 30 * 60_000;

/** What a state carries (signed): nonce, factory, user, expiry (ms). */
interface StatePayload {
  v: 1;
  n: string;
  a: string;
  u: string;
  e: number;
}

function stateKey(ctx: RequestContext): string {
  return deriveSecret(ctx.gateway.pepper, 'github-install-state');
}

function mac(ctx: RequestContext, body: string): string {
  return crypto.createHmac('sha256', stateKey(ctx)).update(body).digest('base64url');
}

export function signState(ctx: RequestContext, payload: StatePayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(ctx, body)}`;
}

/** The payload of a state this gateway signed, or null (malformed or signed by anyone else). */
function verifyState(ctx: RequestContext, state: string): StatePayload | null {
  const [body, given, extra] = state.split('.');
  if (!body || !given || extra !== undefined) return null;
  const expected = Buffer.from(mac(ctx, body));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !crypto.timingSafeEqual(expected, actual)) return null;
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<StatePayload>;
    if (
      p.v !== 1 ||
      typeof p.n !== 'string' ||
      typeof p.a !== 'string' ||
      typeof p.u !== 'string' ||
      typeof p.e !== 'number'
    )
      return null;
    return p as StatePayload;
  } catch {
    return null;
  }
}

function bindingOf(row: store.BindingRow): Binding {
  return {
    installationId: Number(row.installation_id),
    account: row.account,
    boundVia: row.bound_via,
    boundAt: new Date(Number(row.created_at)).toISOString(),
  };
}

/** The App's install URL with a fresh state for this factory and its calling user. */
export async function issueInstallLink(ctx: FactoryContext): Promise<InstallLink> {
  const userId = ctx.principal.userId;
  if (!userId) throw apiError('internal_error', 'route is missing its user guard');
  const page = await githubApp(ctx.gateway).appPage();
  const expiresAt = ctx.clock.now() + INSTALL_STATE_TTL_MS;
  const state = signState(ctx, {
    v: 1,
    n: crypto.randomBytes(16).toString('base64url'),
    a: ctx.appId,
    u: userId,
    e: expiresAt,
  });
  return {
    url: `${page}/installations/new?state=${encodeURIComponent(state)}`,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

export async function listBindings(ctx: FactoryContext): Promise<Binding[]> {
  return (await store.listBindings(ctx.db, ctx.appId)).map(bindingOf);
}

/** Whether the factory may connect repositories of `installationId`. */
export async function isBound(ctx: FactoryContext, installationId: number): Promise<boolean> {
  return (await store.findBinding(ctx.db, ctx.appId, installationId)) !== undefined;
}

/** GitHub's answer for the installation; 404 installation_not_found when it does not exist. */
async function existingInstallation(ctx: RequestContext, installationId: number): Promise<{ account: string | null }> {
  const found = await githubApp(ctx.gateway).installationAccount(installationId);
  if (!found)
    throw apiError('installation_not_found', `GitHub does not know installation ${installationId} of this App.`, {
      installationId,
    });
  return found;
}

async function bind(
  ctx: RequestContext,
  input: {
    appId: string;
    orgId: string;
    installationId: number;
    via: 'install_link' | 'admin';
    by: string | null;
    actor: Principal;
    found: { account: string | null };
  },
): Promise<{ binding: Binding; created: boolean }> {
  const { found } = input;
  const created = await store.insertBinding(ctx.db, {
    app_id: input.appId,
    installation_id: input.installationId,
    org_id: input.orgId,
    account: found.account,
    bound_via: input.via,
    bound_by: input.by,
    created_at: ctx.clock.now(),
  });
  if (created) {
    await recordAudit(ctx.db, ctx.clock, {
      orgId: input.orgId,
      actionType: 'installation.bound',
      actor: input.actor,
      targetType: 'app',
      targetId: input.appId,
      targetIdentifier: `installation ${input.installationId}${found.account ? ` (${found.account})` : ''}`,
      details: { installationId: input.installationId, account: found.account, via: input.via },
    });
  }
  const row = await store.findBinding(ctx.db, input.appId, input.installationId);
  if (!row) throw apiError('internal_error', 'The binding vanished while it was being made.');
  return { binding: bindingOf(row), created };
}

/**
 * GitHub's setup URL: binds `installationId` to the factory the state was issued for. Checks in order:
 * signature (400 invalid_install_state), expiry (410 install_state_expired), not spent (409
 * install_state_used), the issuing user may still connect repositories in that factory (400
 * invalid_install_state), the browser's dashboard session is that user's and they signed in with GitHub
 * in the last 8 hours (403 github_sign_in_required), GitHub knows the installation (404
 * installation_not_found), their GitHub account reaches it (403 installation_not_reachable). The state is
 * spent only once every check has passed, so a refusal the person can fix (or a GitHub outage, 503) does not
 * burn it.
 */
export async function completeInstall(
  ctx: RequestContext,
  installationId: number,
  state: string,
  sessionUserId: string | null,
): Promise<{ appId: string; binding: Binding; created: boolean }> {
  const payload = verifyState(ctx, state);
  if (!payload)
    throw apiError(
      'invalid_install_state',
      'The install link state was not issued by this gateway or was altered. Ask for a new install link.',
    );
  const now = ctx.clock.now();
  if (payload.e <= now)
    throw apiError(
      'install_state_expired',
      'The install link has expired. Ask for a new install link and install again.',
    );
  const digest = digestOf(state, ctx.gateway.pepper);
  const spent = () =>
    apiError('install_state_used', 'This install link was already used; each works once. Ask for a new install link.');
  if (await store.isStateUsed(ctx.db, digest)) throw spent();

  // The user the link was issued to must still be allowed to connect repositories in that factory.
  const app = await authStore.findLiveApp(ctx.db, payload.a);
  const member = app ? await authStore.findMembership(ctx.db, app.orgId, payload.u) : undefined;
  if (!app || !member || !isRole(member.role) || !ROLE_PERMISSIONS[member.role].includes('repositories.write')) {
    throw apiError(
      'invalid_install_state',
      'The user this install link was issued to can no longer connect repositories in its factory.',
    );
  }
  const signInFirst = () =>
    apiError(
      'github_sign_in_required',
      'Binding an installation needs you signed in to this dashboard with GitHub, as the person who asked for the ' +
        'install link. Sign in with GitHub, then open the install link again.',
    );
  if (sessionUserId !== payload.u) throw signInFirst();
  const reachable = await githubInstallationsOfUser(ctx, payload.u);
  if (!reachable) throw signInFirst();
  const found = await existingInstallation(ctx, installationId);
  if (!reachable.includes(installationId))
    throw apiError(
      'installation_not_reachable',
      `The GitHub account you signed in with cannot reach installation ${installationId}. Sign in with GitHub as an ` +
        `account that can (one that administers where the App is installed), then open the install link again.`,
      { installationId },
    );
  if (!(await store.spendState(ctx.db, { digest, app_id: payload.a, expires_at: payload.e, used_at: now })))
    throw spent();

  const actor: Principal = {
    kind: 'login_token',
    credentialId: `install-link:${payload.n}`,
    userId: payload.u,
    orgId: app.orgId,
    orgName: app.orgName,
    plan: null,
    appId: app.appId,
    workItemId: null,
    role: member.role,
    permissions: new Set(),
    label: 'install link',
  };
  const result = await bind(ctx, {
    appId: app.appId,
    orgId: app.orgId,
    installationId,
    via: 'install_link',
    by: payload.u,
    actor,
    found,
  });
  return { appId: app.appId, ...result };
}

/** The operator binds an installation to a factory (admin token). */
export async function adminBind(
  ctx: RequestContext,
  appId: string,
  installationId: number,
): Promise<{ binding: Binding; created: boolean }> {
  const app = await authStore.findLiveApp(ctx.db, appId);
  if (!app) throw apiError('app_not_found', `No factory ${appId}.`);
  if (!ctx.principal) throw apiError('internal_error', 'route is missing its admin guard');
  const found = await existingInstallation(ctx, installationId);
  return bind(ctx, {
    appId: app.appId,
    orgId: app.orgId,
    installationId,
    via: 'admin',
    by: null,
    actor: ctx.principal,
    found,
  });
}

async function unbind(
  ctx: RequestContext,
  app: { appId: string; orgId: string },
  installationId: number,
  actor: Principal | null,
): Promise<Unbound> {
  const removed = await store.deleteBinding(ctx.db, app.appId, installationId);
  if (!removed)
    throw apiError('installation_binding_not_found', `Installation ${installationId} is not bound to this factory.`, {
      installationId,
    });
  const { binding, repositories } = removed;
  const disconnectedRepositories = repositories.map((r) => r.full_name);
  await recordAudit(ctx.db, ctx.clock, {
    orgId: app.orgId,
    actionType: 'installation.unbound',
    actor,
    targetType: 'app',
    targetId: app.appId,
    targetIdentifier: `installation ${installationId}${binding.account ? ` (${binding.account})` : ''}`,
    details: { installationId, account: binding.account, disconnectedRepositories },
  });
  for (const r of repositories) {
    await recordAudit(ctx.db, ctx.clock, {
      orgId: app.orgId,
      actionType: 'repository.disconnected',
      actor,
      targetType: 'repository',
      targetId: r.full_name,
      targetIdentifier: r.full_name,
      details: { installationId, with: 'installation.unbound' },
    });
  }
  return { installationId, account: binding.account, disconnectedRepositories };
}

/** The factory unbinds one of its installations (404 installation_binding_not_found when it has no such binding). */
export function unbindFromFactory(ctx: FactoryContext, installationId: number): Promise<Unbound> {
  return unbind(ctx, { appId: ctx.appId, orgId: ctx.orgId }, installationId, ctx.principal);
}

/** The operator unbinds an installation from a factory (admin token). */
export async function adminUnbind(ctx: RequestContext, appId: string, installationId: number): Promise<Unbound> {
  const app = await authStore.findLiveApp(ctx.db, appId);
  if (!app) throw apiError('app_not_found', `No factory ${appId}.`);
  if (!ctx.principal) throw apiError('internal_error', 'route is missing its admin guard');
  return unbind(ctx, app, installationId, ctx.principal);
}
