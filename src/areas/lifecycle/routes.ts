// The data's lifecycle (issue 42): DELETE /v1/sessions/{id} and DELETE /v1/artifacts/{id}. Owners only (the
// permissions sessions.delete and artifacts.delete, which no other role and no key preset but an owner's
// full-access key holds).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, NoContent } from '../../server/schemas.js';
import { deleteArtifact, deleteSession, deleteWorkItemEvidence } from './service.js';

export const lifecycleRoutes: AreaRoutes = (app) => {
  app.delete(
    '/sessions/:traceId',
    {
      config: { guard: { permission: 'sessions.delete' } },
      schema: {
        summary: 'Delete a session and every copy of it',
        tags: ['sessions'],
        description:
          'Deletes the session (by trace id, or the id its agent wrote) and its subagent transcripts: the summary ' +
          'rows, the ' +
          'document, usage and tool rows, PR links, verification facts, title-search rows; counters and metric ' +
          'rollups ' +
          'are adjusted so totals stay exact; images no session of the factory names any more are released, and a ' +
          'blob no ' +
          'factory holds is removed from the blob store. The audit log records who deleted which id. A later read of ' +
          'the ' +
          'id answers 410 session_deleted. Errors: 404 session_not_found, 410 session_deleted (deleted already), 403 ' +
          'forbidden (sessions.delete: owners only).',
        params: Type.Object({ traceId: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await deleteSession(factoryContext(req.ctx), req.params.traceId);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/artifacts/:id',
    {
      config: { guard: { permission: 'artifacts.delete' } },
      schema: {
        summary: 'Delete an artifact and its bytes',
        tags: ['artifacts'],
        description:
          "Deletes the artifact's row; its bytes leave the blob store when no artifact or session image of any " +
          'factory ' +
          'refers to them any more. The audit log records who deleted which id. A later read answers 410 ' +
          'artifact_deleted. Errors: 404 artifact_not_found, 410 artifact_deleted, 403 forbidden (artifacts.delete: ' +
          'owners only).',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await deleteArtifact(factoryContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.delete(
    '/work-items/:id/artifacts',
    {
      config: { guard: { permission: 'artifacts.delete' } },
      schema: {
        summary: "Delete a work item's evidence",
        tags: ['artifacts', 'work-items'],
        description:
          'Deletes every artifact GET /v1/work-items/{id}/artifacts reaches (anchored to the item, to a pull request ' +
          'declared onto it, or emitted from a session linked to it), replaced versions included, each as DELETE ' +
          '/v1/artifacts/{id} does: a later read answers 410 artifact_deleted, bytes leave the blob store when ' +
          'nothing ' +
          'of any factory refers to them. The item, its criteria, findings, claims and sessions stay. The audit log ' +
          'records who deleted which ids (work_item.evidence_deleted). Answers how many artifacts went (0 when it ' +
          'had ' +
          'none). Errors: 404 work_item_not_found, 403 forbidden (artifacts.delete: owners only).',
        params: Type.Object({
          id: Type.String({
            pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[1-9][0-9]{0,14})$',
            description: 'The work item id (uuid) or its number in the factory.',
          }),
        }),
        response: { 200: Data(Type.Object({ workItemId: Type.String(), artifacts: Type.Integer({ minimum: 0 }) })) },
      },
    },
    async (req) => ({ data: await deleteWorkItemEvidence(factoryContext(req.ctx), req.params.id) }),
  );
};
