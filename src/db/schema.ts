// The database interface Kysely types queries with. Core tables live here; each area adds its own tables
// by augmenting `Database` from its store.ts (declare module '../../db/schema.js'), so areas never edit
// this file to add a table.
//
// Conventions, the same on SQLite and PostgreSQL:
// - ids are text uuids minted by the gateway;
// - instants are bigint epoch milliseconds (*_at); pg's int8 is parsed back to number;
// - booleans are integers 0/1; JSON is text; money is integer micro-dollars.

/**
 * The token and cost columns of every table that counts model usage (a session, its per-model usage, the daily
 * model rollup), in the order they are declared and summed.
 */
export const USAGE_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  /** The one-hour part of cache_write_tokens. */
  'cache_write_1h_tokens',
  'cost_micros',
] as const;
export type UsageColumns = Record<(typeof USAGE_COLUMNS)[number], number>;

export interface OrgsTable {
  id: string;
  name: string;
  plan: string;
  created_at: number;
  updated_at: number;
  /** JSON `{ domains, role }`: who joins on first sign-in by verified email domain; null or absent = off. */
  auto_join?: string | null;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  created_at: number;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: string;
  created_at: number;
}

export interface AppsTable {
  id: string;
  org_id: string;
  name: string;
  display_name: string;
  runner_updates_mode: string;
  runner_updates_version: string | null;
  /** The living PR comment (0015): 'off' (default) or 'on'. */
  pr_comment: string;
  /** The `Attest evidence` check run on each PR's head commit (0028): 'off' (default) or 'on'. */
  pr_check: string;
  /**
   * Retention (0035, issue 42): days before a session is cut to redacted, to metrics, deleted; an artifact deleted.
   * Null keeps.
   */
  retention_full_days: number | null;
  retention_redacted_days: number | null;
  retention_sessions_days: number | null;
  retention_artifacts_days: number | null;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
  deleted_at: number | null;
}

export type CredentialKind =
  | 'factory_key'
  | 'login_token'
  | 'management_key'
  | 'item_key'
  | 'admin_token'
  | 'oauth_token'
  | 'dashboard_session';

export interface CredentialsTable {
  id: string;
  kind: CredentialKind;
  digest: string;
  /** First characters of the plaintext, safe to show (e.g. sk_outerlayer_AbCd). */
  prefix: string;
  name: string;
  org_id: string | null;
  app_id: string | null;
  /** Owner of a login token. */
  user_id: string | null;
  /** User who minted a factory or management key; their leaving the org disables the key. */
  created_by: string | null;
  work_item_id: string | null;
  /** JSON array of permissions (factory and management keys). */
  permissions: string;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** OAuth access tokens: the resource (MCP URL) the token is bound to; null for other kinds (0008). */
  audience: string | null;
  /** Dashboard sessions: the login token the session came from; null for other kinds (0010). */
  parent_id: string | null;
  /** Dashboard sessions: the last time the session was used (idle expiry); null for other kinds (0010). */
  last_used_at: number | null;
}

export interface AuditLogTable {
  id: string;
  org_id: string;
  seq: number;
  action_type: string;
  actor_id: string;
  actor_type: string;
  /** The actor's pseudonym (audit_identities.id); null for the gateway itself (0043). */
  actor_ref: string | null;
  target_id: string;
  target_type: string;
  /** The target's pseudonym when it names a person or a credential; then target_identifier is '' (0043). */
  target_ref: string | null;
  target_identifier: string;
  details: string;
  created_at: number;
  prev_hash: string;
  row_hash: string;
}

/**
 * Who an audit pseudonym stands for (0043). Erasing a person deletes their rows here; the audit rows, which hold
 * only the pseudonym, keep hashing as before.
 */
export interface AuditIdentitiesTable {
  id: string;
  org_id: string;
  /** 'user:<user id>' | 'email:<lower-case email>' | 'credential:<credential id>' */
  subject: string;
  name: string;
  email: string;
  /** What names it on one line: a user's email, a credential's name. */
  label: string;
  created_at: number;
}

export interface Database {
  orgs: OrgsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  apps: AppsTable;
  credentials: CredentialsTable;
  audit_log: AuditLogTable;
  audit_identities: AuditIdentitiesTable;
}
