// Factory API keys: presets, permission subsets, unique names, plaintext exactly once.
import { isUniqueViolation } from '../../db/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { presetPermissions, type Permission } from '../../server/permissions.js';
import { recordAudit } from '../../server/audit.js';
import type { ApiKey, CreatedApiKey, CreateKeyInput } from './schema.js';
import * as store from './store.js';

type KeyRow = Awaited<ReturnType<typeof store.listLiveKeys>>[number];

/**
 * The stored permissions text, parsed. A factory's keys share a handful of distinct texts (the presets), so
 * each is parsed once: parsing it on every listed row was about 4% of the CPU of GET /v1/api-keys. The arrays
 * are frozen because they are shared between answers.
 */
const parsedPermissions = new Map<string, readonly Permission[]>();
function permissionsOf(text: string): readonly Permission[] {
  let permissions = parsedPermissions.get(text);
  if (!permissions) {
    permissions = Object.freeze(JSON.parse(text) as Permission[]);
    if (parsedPermissions.size >= 256) parsedPermissions.clear();
    parsedPermissions.set(text, permissions);
  }
  return permissions;
}

function toWire(row: KeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    // Frozen and shared (see permissionsOf); the wire type is mutable only because the route schema's is.
    permissions: permissionsOf(row.permissions) as string[],
    key_prefix: row.prefix,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    expires_at: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  };
}

export async function listKeys(ctx: FactoryContext, page: { limit?: number; offset?: number } = {}): Promise<ApiKey[]> {
  const now = ctx.clock.now();
  const live = (await store.listLiveKeys(ctx.db, ctx.appId))
    .filter((k) => k.expires_at === null || k.expires_at > now)
    .map(toWire);
  const offset = page.offset ?? 0;
  return live.slice(offset, page.limit === undefined ? undefined : offset + page.limit);
}

export async function createKey(ctx: FactoryContext, input: CreateKeyInput): Promise<CreatedApiKey> {
  if (input.preset && input.permissions)
    throw apiError('invalid_request_body', 'Send either preset or permissions, not both.', {
      details: [{ path: 'preset', message: 'conflicts with permissions' }],
    });
  const creatorPermissions = [...ctx.principal.permissions];
  const permissions = input.permissions
    ? [...new Set(input.permissions)]
    : presetPermissions(input.preset ?? 'read-only', creatorPermissions);
  const beyond = permissions.filter((p) => !ctx.principal.permissions.has(p));
  if (beyond.length) {
    throw apiError('forbidden', `A key cannot be granted permissions its creator lacks: ${beyond.join(', ')}.`, {
      required_permission: beyond[0],
    });
  }
  const now = ctx.clock.now();
  let expiresAt: number | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = Date.parse(input.expiresAt);
    if (!Number.isFinite(expiresAt) || expiresAt <= now) {
      throw apiError('invalid_request_body', 'expiresAt must be a date-time in the future.', {
        details: [{ path: 'expiresAt', message: 'must be in the future' }],
      });
    }
  }
  const createdBy = ctx.principal.userId;
  try {
    const minted = await mintCredential(ctx.db, ctx.gateway.pepper, now, {
      kind: 'factory_key',
      name: input.name,
      orgId: ctx.orgId,
      appId: ctx.appId,
      createdBy,
      permissions,
      expiresAt,
    });
    await recordAudit(ctx.db, ctx.clock, {
      orgId: ctx.orgId,
      actionType: 'api_key.created',
      actor: ctx.principal,
      targetType: 'api_key',
      targetId: minted.id,
      targetIdentifier: input.name,
      details: { permissions },
    });
    return {
      ...toWire({
        id: minted.id,
        name: input.name,
        permissions: JSON.stringify(permissions),
        prefix: minted.prefix,
        created_at: now,
        created_by: createdBy,
        expires_at: expiresAt,
      }),
      plaintext_key: minted.plaintext,
    };
  } catch (err) {
    if (isUniqueViolation(err))
      throw apiError('duplicate_api_key_name', `An API key named "${input.name}" already exists in this factory.`);
    throw err;
  }
}

export async function revokeKey(ctx: FactoryContext, id: string): Promise<void> {
  const key = await store.findLiveKey(ctx.db, ctx.appId, id);
  if (!key) throw apiError('api_key_not_found', 'No such API key in this factory.');
  // The update decides (it only touches a live key): of two revokes at once, the second finds none and answers
  // 404, not 204 with a second audit row.
  const revoked = await store.revokeKey(ctx.db, ctx.appId, id, ctx.clock.now());
  if (Number(revoked.numUpdatedRows) === 0) throw apiError('api_key_not_found', 'No such API key in this factory.');
  ctx.gateway.auth.invalidate();
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'api_key.revoked',
    actor: ctx.principal,
    targetType: 'api_key',
    targetId: id,
    targetIdentifier: key.name,
  });
}
