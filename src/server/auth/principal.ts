// Who is calling: a credential plaintext resolved to a principal, with a short-lived in-process cache.
// The cache is what makes revocation "immediate on this node, within authCacheMs on the others": the
// node that revokes clears its own cache; other nodes drop entries when they age out.
import type { Db } from '../../db/connection.js';
import type { CredentialKind } from '../../db/schema.js';
import { apiError, type ApiError } from '../errors.js';
import { isPermission, ROLE_PERMISSIONS, isRole, type Permission, type Role } from '../permissions.js';
import type { Clock } from '../clock.js';
import { digestOf, digestsEqual, parsePlaintext } from '../credentials.js';
import * as store from './store.js';

export type Plan = 'free' | 'paid' | 'enterprise';

export interface Principal {
  /**
   * `signed_url`: no credential; a signed artifact URL (src/server/signed-urls.ts) opened one artifact's
   * bytes. `system`: the gateway's own background work (the PR comment worker), never a request.
   */
  kind: CredentialKind | 'signed_url' | 'system';
  credentialId: string;
  /** The person behind the call: a login token's owner, or the member who minted a key. */
  userId: string | null;
  orgId: string | null;
  orgName: string | null;
  plan: Plan | null;
  appId: string | null;
  workItemId: string | null;
  role: Role | null;
  permissions: ReadonlySet<Permission>;
  /** How the caller is shown in the audit log. */
  label: string;
  /** OAuth access tokens: the resource URL the token is bound to (checked by the guard on every call). */
  audience?: string | null;
  /** When the credential stops working (checked on every call, cached or not). */
  expiresAt?: number | null;
  /** Dashboard sessions: the login token the session came from. */
  parentId?: string | null;
}

/** What a call names besides its credential: the factory (header or path) or the org (path). */
export interface Target {
  appId?: string | null;
  orgName?: string | null;
}

/**
 * The one answer for a credential that does not act here: unknown, revoked, expired, or naming (by header,
 * path or OAuth audience) a factory or resource it does not belong to (API.md §2: no oracle). Every such
 * refusal throws exactly this: same code, same message, no extra fields, so the body and headers cannot tell
 * the cases apart.
 */
export const CREDENTIAL_REFUSED_MESSAGE =
  'The credential is unknown, expired or revoked, or does not belong to the factory the request names.';
export function credentialRefused(): ApiError {
  return apiError('unauthorized', CREDENTIAL_REFUSED_MESSAGE);
}

/** A uuid no row has: the stand-in id for the lookups an unknown credential makes (see `equalizeLookups`). */
const NO_ROW_ID = '00000000-0000-0000-0000-000000000000';

/** How often a dashboard session's last use is written (the idle expiry is hours, so a minute is exact enough). */
const TOUCH_EVERY_MS = 60_000;

/** The factory (and its org) a principal acts in. */
function inFactory(app: { orgId: string; orgName: string; plan: string; appId: string }) {
  return { orgId: app.orgId, orgName: app.orgName, plan: app.plan as Plan, appId: app.appId };
}

/** A member's role and the permissions it grants. */
function withRole(role: Role) {
  return { role, permissions: new Set<Permission>(ROLE_PERMISSIONS[role]) };
}

interface CacheEntry {
  at: number;
  result: Principal | { error: 'unauthorized' | 'creator_not_member' };
}

export class PrincipalResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly pepper: string,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /** Dashboard sessions end after this long without use. */
    private readonly sessionIdleMs: number = 12 * 3600_000,
  ) {}

  /**
   * Drop aged-out entries (at most once a TTL, on a miss), so a plaintext that is no longer used does not
   * stay in memory for long; and everything past 10,000 entries.
   */
  private sweep(now: number): void {
    if (this.cache.size > 10_000) this.cache.clear();
    if (now - this.lastSweep < this.ttlMs) return;
    this.lastSweep = now;
    for (const [key, entry] of this.cache) if (now - entry.at >= this.ttlMs || now < entry.at) this.cache.delete(key);
  }

  /** Forget everything cached, after a revocation or membership change on this node. */
  invalidate(): void {
    this.cache.clear();
  }

  /**
   * The caller of a verified signed artifact URL: the factory the signature names, only artifacts.read,
   * and only on the route and artifact the signature covers (the guard checks those). Null when the
   * factory is gone.
   */
  async signedUrl(appId: string, artifactId: string): Promise<Principal | null> {
    const app = await store.findLiveApp(this.db, appId);
    if (!app) return null;
    return {
      kind: 'signed_url',
      credentialId: `signed-url:${artifactId}`,
      userId: null,
      ...inFactory(app),
      workItemId: null,
      role: null,
      permissions: new Set<Permission>(['artifacts.read']),
      label: 'signed artifact URL',
    };
  }

  digest(plaintext: string): string {
    return digestOf(plaintext, this.pepper);
  }

  /**
   * Resolve a plaintext. `appId` is the factory a login token wants to act on (from the header or the
   * path); other kinds carry their factory themselves. `parsedKind` is parsePlaintext(plaintext) when the
   * caller has it already. Throws 401/403 ApiErrors.
   */
  async resolve(
    plaintext: string,
    target: string | null | Target,
    parsedKind?: CredentialKind | null,
  ): Promise<Principal> {
    const { appId = null, orgName = null } = typeof target === 'object' && target !== null ? target : { appId: target };
    // The guard has already parsed the plaintext (checksum and all); others have not.
    const kind = parsedKind === undefined ? parsePlaintext(plaintext) : parsedKind;
    if (!kind) throw apiError('unauthorized', 'The credential is malformed or its checksum does not match.');
    // Keyed by the plaintext itself, not its digest: the HMAC is then paid only on a miss (it was about 5% of
    // the CPU of a cached authenticated read). The plaintext is in this process's memory for the request
    // anyway, and whoever can read the heap can read the pepper and the store too.
    const key =
      kind === 'login_token'
        ? `${plaintext}|${appId ?? ''}`
        : kind === 'dashboard_session'
          ? `${plaintext}|${appId ?? ''}|${orgName ?? ''}`
          : plaintext;
    const now = this.clock.now();
    let entry = this.cache.get(key);
    if (!entry || now - entry.at >= this.ttlMs || now < entry.at) {
      entry = { at: now, result: await this.load(this.digest(plaintext), kind, appId, orgName) };
      this.sweep(now);
      this.cache.set(key, entry);
    }
    const result = entry.result;
    if (!('error' in result) && result.expiresAt != null && result.expiresAt <= now) throw credentialRefused();
    if ('error' in result) {
      throw result.error === 'creator_not_member'
        ? apiError('creator_not_member', 'The member who created this key is no longer in the organization.')
        : credentialRefused();
    }
    return result;
  }

  /**
   * Timing: a credential that is unknown, revoked or expired is refused after its digest lookup, while a
   * live one goes on to the lookups its kind needs (its factory, its creator's membership, the named
   * factory and the user's membership there) before the guard can find that it names another factory. Left
   * alone, the refusal of a live key naming another factory would take one to three more round trips to the
   * store than the refusal of an unknown key: a timing oracle telling a live credential from a dead one.
   * So a dead credential makes the same lookups its kind's live path makes, with ids no row has; both
   * refusals then cost the same number of round trips, of the same statements on the same indexes. Within
   * the cache TTL both are answered from memory. (Constant work beats a random delay: noise averages out
   * over repeated probes, an equal query count does not.)
   */
  private async equalizeLookups(kind: CredentialKind, appId: string | null): Promise<void> {
    switch (kind) {
      case 'factory_key':
        await store.findLiveApp(this.db, NO_ROW_ID);
        await store.findMembership(this.db, NO_ROW_ID, NO_ROW_ID);
        return;
      case 'item_key':
        await store.findLiveApp(this.db, NO_ROW_ID);
        return;
      case 'management_key':
        await store.findOrg(this.db, NO_ROW_ID);
        await store.findMembership(this.db, NO_ROW_ID, NO_ROW_ID);
        return;
      case 'login_token':
        await store.findUser(this.db, NO_ROW_ID);
        if (appId) {
          await store.findLiveApp(this.db, appId);
          await store.findMembership(this.db, NO_ROW_ID, NO_ROW_ID);
        }
        return;
      case 'oauth_token':
        await store.findUser(this.db, NO_ROW_ID);
        await store.findLiveApp(this.db, NO_ROW_ID);
        await store.findMembership(this.db, NO_ROW_ID, NO_ROW_ID);
        return;
      default:
        return;
    }
  }

  private async load(
    digest: string,
    kind: CredentialKind,
    appId: string | null,
    orgName: string | null = null,
  ): Promise<CacheEntry['result']> {
    const row = await store.findByDigest(this.db, digest);
    const now = this.clock.now();
    // The index lookup finds the row; the constant-time comparison is what decides.
    if (
      !row ||
      !digestsEqual(row.digest, digest) ||
      row.kind !== kind ||
      row.revoked_at !== null ||
      (row.expires_at !== null && row.expires_at <= now)
    ) {
      await this.equalizeLookups(kind, appId);
      return { error: 'unauthorized' };
    }
    const storedPermissions = (JSON.parse(row.permissions) as string[]).filter(isPermission);
    const base = {
      kind,
      credentialId: row.id,
      userId: row.user_id ?? row.created_by,
      orgId: row.org_id,
      orgName: null as string | null,
      plan: null as Plan | null,
      appId: row.app_id,
      workItemId: row.work_item_id,
      role: null as Role | null,
      permissions: new Set<Permission>(storedPermissions) as ReadonlySet<Permission>,
      label: row.name,
      expiresAt: row.expires_at,
    };

    switch (kind) {
      case 'admin_token':
        return { ...base, label: 'operator' };
      case 'factory_key':
      case 'item_key': {
        if (!row.app_id) return { error: 'unauthorized' };
        const app = await store.findLiveApp(this.db, row.app_id);
        if (!app) return { error: 'unauthorized' };
        if (kind === 'factory_key' && row.created_by) {
          const member = await store.findMembership(this.db, app.orgId, row.created_by);
          if (!member) return { error: 'creator_not_member' };
        }
        return { ...base, orgId: app.orgId, orgName: app.orgName, plan: app.plan as Plan };
      }
      case 'management_key': {
        if (!row.org_id) return { error: 'unauthorized' };
        const org = await store.findOrg(this.db, row.org_id);
        if (!org) return { error: 'unauthorized' };
        if (row.created_by && !(await store.findMembership(this.db, org.id, row.created_by)))
          return { error: 'creator_not_member' };
        return { ...base, orgName: org.name, plan: org.plan as Plan };
      }
      case 'login_token': {
        if (!row.user_id) return { error: 'unauthorized' };
        const user = await store.findUser(this.db, row.user_id);
        if (!user) return { error: 'unauthorized' };
        const withUser = { ...base, userId: user.id, label: user.email };
        // Its owner's token list shows when it was last used (to the minute, as a session's idle clock); only
        // a call the token may make counts, so a refusal costs no write.
        const touch = async () => {
          if (row.last_used_at === null || now - row.last_used_at >= TOUCH_EVERY_MS)
            await store.touchCredential(this.db, row.id, now);
        };
        if (!appId) {
          await touch();
          return { ...withUser, permissions: new Set<Permission>() };
        }
        const app = await store.findLiveApp(this.db, appId);
        // A factory that does not exist costs the same membership lookup as one the user is not in, so the
        // refusal's timing does not tell which factory ids exist.
        const member = await store.findMembership(this.db, app?.orgId ?? NO_ROW_ID, user.id);
        if (!app || !member || !isRole(member.role)) return { error: 'unauthorized' };
        await touch();
        return {
          ...withUser,
          ...inFactory(app),
          ...withRole(member.role),
        };
      }
      case 'dashboard_session': {
        // Acts exactly as the login token it came from would: that token must still be live, and the user
        // must still belong to an org (and to the org of the factory or org the call names).
        if (!row.user_id || !row.parent_id) return { error: 'unauthorized' };
        const lastUsed = row.last_used_at ?? row.created_at;
        if (lastUsed + this.sessionIdleMs <= now) return { error: 'unauthorized' };
        const parent = await store.findCredentialById(this.db, row.parent_id);
        if (
          parent?.kind !== 'login_token' ||
          parent.revoked_at !== null ||
          (parent.expires_at !== null && parent.expires_at <= now)
        ) {
          return { error: 'unauthorized' };
        }
        const user = await store.findUser(this.db, row.user_id);
        if (!user || !(await store.hasAnyMembership(this.db, user.id))) return { error: 'unauthorized' };
        if (now - lastUsed >= TOUCH_EVERY_MS) await store.touchCredential(this.db, row.id, now);
        const idleEnd = (now - lastUsed >= TOUCH_EVERY_MS ? now : lastUsed) + this.sessionIdleMs;
        const withUser = {
          ...base,
          userId: user.id,
          label: user.email,
          parentId: row.parent_id,
          expiresAt: row.expires_at === null ? idleEnd : Math.min(row.expires_at, idleEnd),
        };
        if (appId) {
          const app = await store.findLiveApp(this.db, appId);
          if (!app) return { error: 'unauthorized' };
          const member = await store.findMembership(this.db, app.orgId, user.id);
          if (!member || !isRole(member.role)) return { error: 'unauthorized' };
          return {
            ...withUser,
            ...inFactory(app),
            ...withRole(member.role),
          };
        }
        if (orgName) {
          const org = await store.findOrgByName(this.db, orgName);
          const member = org ? await store.findMembership(this.db, org.id, user.id) : undefined;
          // Not a member (or no such org): the same answer, so a session learns nothing about other orgs.
          if (!org || !member || !isRole(member.role)) return { ...withUser, permissions: new Set<Permission>() };
          return {
            ...withUser,
            orgId: org.id,
            orgName: org.name,
            plan: org.plan as Plan,
            ...withRole(member.role),
          };
        }
        return { ...withUser, permissions: new Set<Permission>() };
      }
      case 'oauth_token': {
        // Acts for its user on the one factory it was granted for, with its scopes intersected with the
        // user's current role there (a demoted or removed member's tokens shrink or stop at once).
        if (!row.user_id || !row.app_id) return { error: 'unauthorized' };
        const user = await store.findUser(this.db, row.user_id);
        const app = await store.findLiveApp(this.db, row.app_id);
        if (!user || !app) return { error: 'unauthorized' };
        const member = await store.findMembership(this.db, app.orgId, user.id);
        if (!member || !isRole(member.role)) return { error: 'unauthorized' };
        const rolePermissions = new Set<Permission>(ROLE_PERMISSIONS[member.role]);
        return {
          ...base,
          userId: user.id,
          ...inFactory(app),
          role: member.role,
          permissions: new Set(storedPermissions.filter((p) => rolePermissions.has(p))),
          label: user.email,
          audience: row.audience,
        };
      }
    }
  }
}
