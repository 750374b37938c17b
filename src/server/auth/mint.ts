// Minting a credential of any kind: the plaintext is returned to the caller once; only its digest is kept.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import type { CredentialKind } from '../../db/schema.js';
import type { Permission } from '../permissions.js';
import { digestOf, displayPrefix, mintPlaintext } from '../credentials.js';
import { insertCredential } from './store.js';

export interface MintRequest {
  kind: CredentialKind;
  name: string;
  orgId?: string | null;
  appId?: string | null;
  userId?: string | null;
  createdBy?: string | null;
  workItemId?: string | null;
  permissions?: readonly Permission[];
  expiresAt?: number | null;
  /** OAuth access tokens: the resource URL the token is bound to. */
  audience?: string | null;
  /** Dashboard sessions: the login token the session came from. */
  parentId?: string | null;
  /** Use this plaintext instead of minting one (ATTEST_ADMIN_TOKEN). */
  plaintext?: string;
}

export interface MintedCredential {
  id: string;
  plaintext: string;
  prefix: string;
  createdAt: number;
}

export async function mintCredential(db: Db, pepper: string, now: number, req: MintRequest): Promise<MintedCredential> {
  const plaintext = req.plaintext ?? mintPlaintext(req.kind);
  const id = crypto.randomUUID();
  const prefix = displayPrefix(plaintext, req.kind);
  await insertCredential(db, {
    id,
    kind: req.kind,
    digest: digestOf(plaintext, pepper),
    prefix,
    name: req.name,
    org_id: req.orgId ?? null,
    app_id: req.appId ?? null,
    user_id: req.userId ?? null,
    created_by: req.createdBy ?? null,
    work_item_id: req.workItemId ?? null,
    permissions: JSON.stringify(req.permissions ?? []),
    expires_at: req.expiresAt ?? null,
    revoked_at: null,
    created_at: now,
    audience: req.audience ?? null,
    parent_id: req.parentId ?? null,
    last_used_at: req.kind === 'dashboard_session' ? now : null,
  });
  return { id, plaintext, prefix, createdAt: now };
}
