// First boot on an empty store (API.md §9): org `default` (enterprise), user admin@localhost (owner),
// factory `default`, an admin token and a login token for the admin user. They are written once to
// <data dir>/bootstrap.json (0600) and returned so `attest serve` can print them once. Later boots find
// the org and create nothing (except registering ATTEST_ADMIN_TOKEN if it is set and new).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { BootstrapResult } from './context.js';
import { mintCredential } from './auth/mint.js';
import { digestOf, parsePlaintext } from './credentials.js';
import { ensurePrivateDir } from '../data-dir.js';

export const DEFAULT_ORG = 'default';
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
const BAD_ADMIN_TOKEN =
  'ATTEST_ADMIN_TOKEN must be an ola_ token with a valid checksum; make one with `attest admin new-token`.';

async function ensureAdminToken(db: Db, pepper: string, now: number, plaintext: string): Promise<void> {
  const existing = await db
    .selectFrom('credentials')
    .select('id')
    .where('digest', '=', digestOf(plaintext, pepper))
    .executeTakeFirst();
  if (!existing) await mintCredential(db, pepper, now, { kind: 'admin_token', name: 'ATTEST_ADMIN_TOKEN', plaintext });
}

async function existing(db: Db): Promise<BootstrapResult | null> {
  const org =
    (await db
      .selectFrom('orgs')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .where('name', '=', DEFAULT_ORG)
      .executeTakeFirst()) ??
    (await db.selectFrom('orgs').selectAll().orderBy('created_at').orderBy('id').limit(1).executeTakeFirst());
  if (!org) return null;
  const app = await db
    .selectFrom('apps')
    .select('id')
    .where('org_id', '=', org.id)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  const owner = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email'])
    .where('memberships.org_id', '=', org.id)
    .where('memberships.role', '=', 'owner')
    .orderBy('memberships.created_at')
    .limit(1)
    .executeTakeFirst();
  return {
    created: false,
    orgName: org.name,
    orgId: org.id,
    appId: app?.id ?? '',
    userId: owner?.id ?? '',
    userEmail: owner?.email ?? '',
  };
}

export async function bootstrap(db: Db, pepper: string, clock: Clock, config: Config): Promise<BootstrapResult> {
  const now = clock.now();
  if (config.adminToken && parsePlaintext(config.adminToken) !== 'admin_token') throw new Error(BAD_ADMIN_TOKEN);
  const found = await existing(db);
  if (found) {
    if (config.adminToken) await ensureAdminToken(db, pepper, now, config.adminToken);
    return found;
  }
  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const appId = crypto.randomUUID();
  let result: BootstrapResult;
  try {
    result = await db.transaction().execute(async (tx) => {
      await tx
        .insertInto('orgs')
        .values({ id: orgId, name: DEFAULT_ORG, plan: 'enterprise', created_at: now, updated_at: now })
        .execute();
      await tx
        .insertInto('users')
        .values({ id: userId, email: DEFAULT_ADMIN_EMAIL, name: 'Administrator', created_at: now })
        .execute();
      await tx
        .insertInto('memberships')
        .values({ org_id: orgId, user_id: userId, role: 'owner', created_at: now })
        .execute();
      await tx
        .insertInto('apps')
        .values({
          id: appId,
          org_id: orgId,
          name: 'default',
          display_name: 'Default factory',
          runner_updates_mode: 'follow',
          runner_updates_version: null,
          pr_comment: 'off',
          pr_check: 'off',
          created_at: now,
          created_by: userId,
          updated_at: now,
          updated_by: userId,
          deleted_at: null,
        })
        .execute();
      const admin = await mintCredential(tx, pepper, now, {
        kind: 'admin_token',
        name: 'bootstrap',
        ...(config.adminToken ? { plaintext: config.adminToken } : {}),
      });
      const login = await mintCredential(tx, pepper, now, { kind: 'login_token', name: 'bootstrap', userId });
      return {
        created: true,
        orgName: DEFAULT_ORG,
        orgId,
        appId,
        userId,
        userEmail: DEFAULT_ADMIN_EMAIL,
        adminToken: admin.plaintext,
        loginToken: login.plaintext,
        loginTokenId: login.id,
      };
    });
  } catch (err) {
    // Another replica bootstrapped at the same moment: use theirs.
    if (isUniqueViolation(err)) {
      const theirs = await existing(db);
      if (theirs) return theirs;
    }
    throw err;
  }
  ensurePrivateDir(config.dataDir);
  const file = path.join(config.dataDir, 'bootstrap.json');
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      {
        org: { id: orgId, name: DEFAULT_ORG },
        factory: { id: appId, name: 'default' },
        user: { id: userId, email: DEFAULT_ADMIN_EMAIL },
        adminToken: result.adminToken,
        loginToken: result.loginToken,
      },
      null,
      2,
    )}\n`,
    { mode: 0o600 },
  );
  fs.chmodSync(file, 0o600);
  return result;
}
