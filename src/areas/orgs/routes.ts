// Org management (management key only, spec part 5 rule 1): members, roles, the audit log and its verify.
import { Type } from 'typebox';
import { orgContext, type AreaRoutes } from '../../server/context.js';
import { Data, Uuid, NoContent, Nullable, Ref } from '../../server/schemas.js';
import {
  AuditEntry,
  AuditLogQuery,
  AuditVerify,
  AutoJoinBody,
  Erasure,
  ErasureBody,
  Invitation,
  Member,
  NewInvitation,
  OrgSelf,
} from './schema.js';
import * as invitations from './invitations.js';
import { ROLES } from '../../server/permissions.js';
import * as orgs from './service.js';
import { erasePerson } from './erasure.js';

// The area's guard (areas/index.ts) answers 403 when the path names an org other than the key's, before
// any lookup, so a key learns nothing about other orgs (not even whether they exist). A dashboard session
// acts on its user's own orgs with their role there (the spec names it for the audit log).
const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
const OrgParams = Type.Object({ orgName: Type.String({ minLength: 1, maxLength: 63 }) });
const MemberParams = Type.Object({ orgName: Type.String({ minLength: 1, maxLength: 63 }), userId: Uuid });
const InvitationParams = Type.Object({ orgName: Type.String({ minLength: 1, maxLength: 63 }), id: Uuid });
const RoleEntry = Type.Object({ name: Type.String(), permissions: Type.Array(Type.String()) });
export const orgsRoutes: AreaRoutes = (app) => {
  app.get(
    '/orgs/:orgName',
    {
      config: { guard: { permission: 'members.read' } },
      schema: {
        summary: "The organization: its plan, and the caller's role and permissions in it",
        tags: ['orgs'],
        description:
          "For the dashboard's organization page: the plan, and what the caller may do (controls for anything else " +
          'are not shown; the routes still refuse).',
        params: OrgParams,
        response: { 200: Data(Ref(OrgSelf)) },
      },
    },
    async (req) => ({ data: await orgs.describeOrg(orgContext(req.ctx)) }),
  );

  app.patch(
    '/orgs/:orgName',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        summary: "Change the organization's settings: auto-join by verified email domain",
        tags: ['orgs'],
        description:
          'With `autoJoin: { domains, role }`, a user whose first sign-in through an identity provider carries a ' +
          'verified email in one of the domains joins at `role` (`write` or `read`, never above). `autoJoin: null` ' +
          'turns it off.',
        params: OrgParams,
        body: Type.Object({ autoJoin: Nullable(AutoJoinBody) }, { additionalProperties: false }),
        response: { 200: Data(Ref(OrgSelf)) },
      },
    },
    async (req) => ({ data: await invitations.setAutoJoin(orgContext(req.ctx), req.body.autoJoin) }),
  );

  app.post(
    '/orgs/:orgName/invitations',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        summary: 'Invite someone to the organization: a single-use link valid 7 days',
        tags: ['orgs'],
        description:
          'Opening the link after signing in joins the organization with `role`. With `email`, only a user whose ' +
          'verified email is that address can accept it. The link is shown only in this answer.',
        params: OrgParams,
        body: Type.Object(
          { email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })), role: Role },
          { additionalProperties: false },
        ),
        response: { 201: Data(Ref(NewInvitation)) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ data: await invitations.createInvitation(orgContext(req.ctx), req.body) }),
  );

  app.get(
    '/orgs/:orgName/invitations',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        summary: "The organization's open invitations (not used, revoked or expired), newest first",
        tags: ['orgs'],
        params: OrgParams,
        response: { 200: Data(Type.Array(Ref(Invitation))) },
      },
    },
    async (req) => ({ data: await invitations.listInvitations(orgContext(req.ctx)) }),
  );

  app.delete(
    '/orgs/:orgName/invitations/:id',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Revoke an open invitation: its link no longer joins',
        tags: ['orgs'],
        params: InvitationParams,
      },
    },
    async (req, reply) => {
      await invitations.revokeInvitation(orgContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgName/members',
    {
      config: { guard: { permission: 'members.read' } },
      schema: {
        summary: "List the organization's members",
        tags: ['orgs'],
        params: OrgParams,
        response: { 200: Data(Type.Array(Ref(Member))) },
      },
    },
    async (req) => ({ data: await orgs.listMembers(orgContext(req.ctx)) }),
  );

  app.post(
    '/orgs/:orgName/members',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        summary: 'Add an existing user to the organization by email',
        tags: ['orgs'],
        description:
          'The user must already exist (the operator creates users); an unknown email answers 404 user_not_found.',
        params: OrgParams,
        body: Type.Object(
          { email: Type.String({ format: 'email', maxLength: 320 }), role: Role },
          { additionalProperties: false },
        ),
        response: { 201: Data(Ref(Member)) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ data: await orgs.addMemberByEmail(orgContext(req.ctx), req.body.email, req.body.role) }),
  );

  app.patch(
    '/orgs/:orgName/members/:userId',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        summary: "Change a member's role",
        tags: ['orgs'],
        params: MemberParams,
        body: Type.Object({ role: Role }, { additionalProperties: false }),
        response: { 200: Data(Ref(Member)) },
      },
    },
    async (req) => ({ data: await orgs.changeMemberRole(orgContext(req.ctx), req.params.userId, req.body.role) }),
  );

  app.delete(
    '/orgs/:orgName/members/:userId',
    {
      config: { guard: { permission: 'members.write' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Remove a member',
        tags: ['orgs'],
        params: MemberParams,
        description:
          "The member's login tokens stop reaching the org's factories, and keys they created answer 403 " +
          'creator_not_member.',
      },
    },
    async (req, reply) => {
      await orgs.removeMemberFromOrg(orgContext(req.ctx), req.params.userId);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/orgs/:orgName/roles',
    {
      config: { guard: { permission: 'members.read' } },
      schema: {
        summary: 'List the roles and the permissions each grants',
        tags: ['orgs'],
        params: OrgParams,
        response: { 200: Data(Type.Array(RoleEntry)) },
      },
    },
    async (req) => {
      orgContext(req.ctx);
      return { data: orgs.listRoles() };
    },
  );

  app.get(
    '/orgs/:orgName/audit-log',
    {
      config: { guard: { permission: 'audit.read' } },
      schema: {
        summary: "The organization's audit trail, newest first",
        tags: ['orgs'],
        description: 'Needs the enterprise plan (402 entitlement_required otherwise).',
        params: OrgParams,
        querystring: AuditLogQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Ref(AuditEntry)),
            pagination: Type.Object({
              page: Type.Integer(),
              pageSize: Type.Integer(),
              total: Type.Integer(),
              totalPages: Type.Integer(),
            }),
          }),
        },
      },
    },
    async (req) => orgs.listAuditLog(orgContext(req.ctx), req.query),
  );

  app.post(
    '/orgs/:orgName/erasures',
    {
      config: { guard: { permission: 'people.erase' } },
      schema: {
        summary: "Erase a person from the organization: their identity and their sessions' text, in every factory",
        tags: ['orgs'],
        description:
          'Name the person by `email` or by `actorId` (a user id, or the actor id their sessions carry), exactly ' +
          'one. Their sessions are cut to the metrics tier and name a pseudonym (costs and rollups stay exact); ' +
          'their membership, sign-in credentials, invitations and audit pseudonyms go, keys named after them are ' +
          'renamed, and their account goes when they belong to no other organization. Owners only ' +
          '(`people.erase`). Idempotent: a repeat answers what the first erasure did. The report is kept in the ' +
          'audit log (`person.erased`), naming the person only by `subject`.',
        params: OrgParams,
        body: ErasureBody,
        response: { 200: Data(Ref(Erasure)) },
      },
    },
    async (req) => ({ data: await erasePerson(orgContext(req.ctx), req.body) }),
  );

  app.get(
    '/orgs/:orgName/audit-log/verify',
    {
      config: { guard: { permission: 'audit.read' } },
      schema: {
        summary: "Check the organization's audit hash chain",
        tags: ['orgs'],
        description:
          'Walks the chain oldest first; firstBadRow is the first row whose seq, prev_hash or row_hash does not hold.',
        params: OrgParams,
        response: {
          200: Data(Ref(AuditVerify)),
        },
      },
    },
    async (req) => ({ data: await orgs.verifyAuditLog(orgContext(req.ctx)) }),
  );
};
