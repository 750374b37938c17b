// Factories (apps): the rules and the wire shape of spec part 2 (App), no HTTP.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../server/clock.js';
import type { Principal } from '../../server/auth/principal.js';
import { apiError } from '../../server/errors.js';
import { recordAudit } from '../orgs/audit.js';
import * as store from './store.js';

export interface AppWire {
  id: string;
  tenant_id: string;
  name: string;
  display_name: string;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
  runner_updates: { mode: string; version: string | null };
}

export function appToWire(row: store.AppRow): AppWire {
  return {
    id: row.id,
    tenant_id: row.org_id,
    name: row.name,
    display_name: row.display_name,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    updated_at: new Date(row.updated_at).toISOString(),
    updated_by: row.updated_by,
    runner_updates: { mode: row.runner_updates_mode, version: row.runner_updates_version },
  };
}

export interface CreateAppInput {
  name: string;
  displayName?: string;
}

export async function createApp(db: Db, clock: Clock, principal: Principal | null, orgId: string, input: CreateAppInput): Promise<AppWire> {
  const now = clock.now();
  const by = principal?.userId ?? principal?.credentialId ?? 'system';
  const row: store.AppRow = {
    id: crypto.randomUUID(), org_id: orgId, name: input.name, display_name: input.displayName ?? input.name,
    runner_updates_mode: 'follow', runner_updates_version: null, created_at: now, created_by: by, updated_at: now, updated_by: by, deleted_at: null,
  };
  try {
    await store.insertApp(db, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw apiError('duplicate_app_name', `A factory named "${input.name}" already exists in this organization.`);
    throw err;
  }
  await recordAudit(db, clock, { orgId, actionType: 'app.created', actor: principal, targetType: 'app', targetId: row.id, targetIdentifier: row.name });
  return appToWire(row);
}
