// Roles, permissions and key presets (API.md §3): one list, used by the guard and by the api-keys area.

export const PERMISSIONS = [
  'apps.read',
  'apps.write',
  'api_keys.read',
  'api_keys.write',
  'sessions.read',
  'sessions.read_team',
  'sessions.write',
  'sessions.delete',
  'artifacts.read',
  'artifacts.write',
  'artifacts.delete',
  'results.read',
  'results.write',
  'work.read',
  'work.write',
  'criteria.write',
  'findings.read',
  'findings.write',
  'repositories.read',
  'repositories.write',
  'hosts.read',
  'hosts.write',
  'metrics.read',
  'context.read',
  'context.write',
  'prs.read',
  'members.read',
  'members.write',
  'audit.read',
  'people.erase',
  'budgets.read',
  'budgets.write',
  'notifications.read',
  'notifications.write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'write', 'read'] as const;
export type Role = (typeof ROLES)[number];

const WRITE_EXCLUDED: ReadonlySet<Permission> = new Set([
  'api_keys.write',
  'members.write',
  'audit.read',
  'sessions.read_team',
]);
const READ_EXCLUDED: ReadonlySet<Permission> = new Set(['sessions.read_team', 'api_keys.read', 'audit.read']);

/**
 * Deleting evidence (issue 42) is the owners' alone: an admin, a writer, or an agent's ingest key must not be able
 * to make a failing session or screenshot disappear from the record. So is erasing a person from the org.
 */
const OWNER_ONLY: ReadonlySet<Permission> = new Set(['sessions.delete', 'artifacts.delete', 'people.erase']);

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => !OWNER_ONLY.has(p)),
  write: PERMISSIONS.filter((p) => !WRITE_EXCLUDED.has(p) && !OWNER_ONLY.has(p)),
  read: PERMISSIONS.filter((p) => p.endsWith('.read') && !READ_EXCLUDED.has(p)),
};

export const KEY_PRESETS = ['ingest', 'read-only', 'full-access'] as const;
export type KeyPreset = (typeof KEY_PRESETS)[number];

const INGEST: readonly Permission[] = [
  'sessions.write',
  'artifacts.write',
  'results.write',
  'hosts.write',
  'work.read',
  'context.write',
];
// "every *.read a write role has"
const READ_ONLY: readonly Permission[] = ROLE_PERMISSIONS.write.filter((p) => p.endsWith('.read'));

/** The permissions a preset grants to a key minted by a creator holding `creatorPermissions`. */
export function presetPermissions(preset: KeyPreset, creatorPermissions: readonly Permission[]): Permission[] {
  if (preset === 'ingest') return [...INGEST];
  if (preset === 'read-only') return [...READ_ONLY];
  return [...creatorPermissions];
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
