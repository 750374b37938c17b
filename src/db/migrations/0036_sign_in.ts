// Sign-in with an identity provider and joining an org (issue 43): invitations (single-use links, kept only
// as digests), an org's auto-join setting, the identities a user signs in with (provider + subject), and the
// sign-in flows under way (state, PKCE verifier and nonce, kept server-side so any replica can finish one).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    // lower-case; null = anyone with the link
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_by', 'text')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('invitations_org').on('invitations').columns(['org_id', 'created_at']).execute();

  // JSON { domains: string[], role } or null (off)
  await db.schema.alterTable('orgs').addColumn('auto_join', 'text').execute();

  await db.schema
    .createTable('identities')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text')
    // the provider's login (GitHub) or preferred_username, for display
    .addColumn('login', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('identities_pk', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('identities_user').on('identities').columns(['user_id']).execute();

  await db.schema
    .createTable('sign_in_flows')
    .addColumn('state_digest', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text')
    // the invitation token the flow carries (to accept once signed in), or null
    .addColumn('invitation', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
}
