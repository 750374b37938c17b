// Reads and writes of the organization page (/o/$org): the org itself (plan, the caller's role and
// permissions), its members, the audit log with its filters, and the chain verification.
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type paths } from '../../api/client';

type AuditRoute = paths['/v1/orgs/{orgName}/audit-log']['get'];
/** The page's search params: exactly the audit log's query, same names (the URL reads like the API call). */
export type AuditSearch = Omit<NonNullable<AuditRoute['parameters']['query']>, 'appId'>;
export type AuditAnswer = AuditRoute['responses']['200']['content']['application/json'];
export type AuditEntry = AuditAnswer['data'][number];
export type Member =
  paths['/v1/orgs/{orgName}/members']['get']['responses']['200']['content']['application/json']['data'][number];
export type Role =
  paths['/v1/orgs/{orgName}/members/{userId}']['patch']['requestBody']['content']['application/json']['role'];

export const ROLES: readonly Role[] = ['owner', 'admin', 'write', 'read'];
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;
/** What writes audit rows today (docs/orgs-and-apps.md); offered as suggestions, any value may be typed. */
export const ACTION_TYPES = [
  'org.created',
  'org.plan_changed',
  'member.added',
  'member.role_changed',
  'member.removed',
  'member.joined',
  'invitation.created',
  'invitation.revoked',
  'org.auto_join_changed',
  'api_key.created',
  'api_key.revoked',
  'management_key.created',
  'app.created',
  'app.updated',
  'app.deleted',
  'permission.denied',
  'oauth.authorized',
  'repository.connected',
  'repository.disconnected',
] as const;
export const TARGET_TYPES = [
  'org',
  'member',
  'app',
  'api_key',
  'management_key',
  'work_item',
  'repository',
  'invitation',
] as const;

const FILTER_KEYS = ['actionType', 'targetType', 'startDate', 'endDate'] as const;
export type AuditFilterKey = (typeof FILTER_KEYS)[number];

function positiveInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** Keeps what the audit log route understands from the URL; the API validates the values. */
export function parseAuditSearch(s: Record<string, unknown>): AuditSearch {
  const out: AuditSearch = {};
  for (const k of FILTER_KEYS) {
    const v = s[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
  }
  const page = positiveInt(s.page),
    pageSize = positiveInt(s.pageSize);
  if (page !== undefined && page > 1) out.page = page;
  if (pageSize !== undefined) out.pageSize = pageSize;
  return out;
}

const orgPath = (org: string) => ({ params: { path: { orgName: org } } });

export const orgQuery = (org: string) =>
  queryOptions({
    queryKey: ['org', org.toLowerCase()],
    queryFn: () => unwrap(api.GET('/v1/orgs/{orgName}', orgPath(org))).then((r) => r.data),
  });

export const membersQuery = (org: string) =>
  queryOptions({
    queryKey: ['org', org.toLowerCase(), 'members'],
    queryFn: () => unwrap(api.GET('/v1/orgs/{orgName}/members', orgPath(org))).then((r) => r.data),
  });

export const auditQuery = (org: string, search: AuditSearch) =>
  queryOptions({
    queryKey: ['org', org.toLowerCase(), 'audit', search],
    queryFn: async (): Promise<AuditAnswer> => {
      // A 400 names the field it refuses (ApiClientError.details), which the page shows next to that field.
      return unwrap(api.GET('/v1/orgs/{orgName}/audit-log', { params: { path: { orgName: org }, query: search } }));
    },
    // A 4xx is an answer (bad filter, plan without the audit log), not a hiccup to retry.
    retry: false,
  });

export const verifyQuery = (org: string) =>
  queryOptions({
    queryKey: ['org', org.toLowerCase(), 'audit-verify'],
    queryFn: () => unwrap(api.GET('/v1/orgs/{orgName}/audit-log/verify', orgPath(org))).then((r) => r.data),
    retry: false,
  });

export async function changeRole(org: string, userId: string, role: Role): Promise<Member> {
  return unwrap(
    api.PATCH('/v1/orgs/{orgName}/members/{userId}', { params: { path: { orgName: org, userId } }, body: { role } }),
  ).then((r) => r.data);
}

export async function addMember(org: string, email: string, role: Role): Promise<Member> {
  return (
    await unwrap(api.POST('/v1/orgs/{orgName}/members', { params: { path: { orgName: org } }, body: { email, role } }))
  ).data;
}

export async function removeMember(org: string, userId: string): Promise<void> {
  await api.DELETE('/v1/orgs/{orgName}/members/{userId}', { params: { path: { orgName: org, userId } } });
}

export type Invitation =
  paths['/v1/orgs/{orgName}/invitations']['get']['responses']['200']['content']['application/json']['data'][number];
export type NewInvitation =
  paths['/v1/orgs/{orgName}/invitations']['post']['responses']['201']['content']['application/json']['data'];
export type AutoJoin = NonNullable<
  paths['/v1/orgs/{orgName}']['patch']['requestBody']['content']['application/json']['autoJoin']
>;

export const invitationsQuery = (org: string) =>
  queryOptions({
    queryKey: ['org', org.toLowerCase(), 'invitations'],
    queryFn: () => unwrap(api.GET('/v1/orgs/{orgName}/invitations', orgPath(org))).then((r) => r.data),
  });

export async function createInvitation(org: string, email: string, role: Role): Promise<NewInvitation> {
  const body = email === '' ? { role } : { email, role };
  return (await unwrap(api.POST('/v1/orgs/{orgName}/invitations', { ...orgPath(org), body }))).data;
}

export async function revokeInvitation(org: string, id: string): Promise<void> {
  // 204: no body to unwrap (an error answer throws in the client's middleware).
  await api.DELETE('/v1/orgs/{orgName}/invitations/{id}', { params: { path: { orgName: org, id } } });
}

export async function setAutoJoin(org: string, autoJoin: AutoJoin | null) {
  return (await unwrap(api.PATCH('/v1/orgs/{orgName}', { ...orgPath(org), body: { autoJoin } }))).data;
}
