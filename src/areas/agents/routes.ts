// Agents: POST /v1/agents/sync (AgentSession v1 ingest, as existing CLIs send it) and
// GET /v1/agents/blob/{sha256} (content-addressed session images).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Bytes, Data, NoBody } from '../../server/schemas.js';
import { isActiveContent } from '../artifacts/service.js';
import type { DurableWriter } from '../../db/group-commit.js';
import { getBlob, reportSyncFailures, sync, SYNC_LIMITS, syncWriter } from './service.js';
import { SyncBody, SyncResult } from './schema.js';

const BLOB_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/** Each sync's writer, from the moment its body has arrived until its answer is sent (or it is aborted). */
const writers = new WeakMap<object, DurableWriter>();
const leave = async (req: object) => writers.get(req)?.leave();

export const agentsRoutes: AreaRoutes = (app) => {
  app.post(
    '/agents/sync',
    {
      bodyLimit: SYNC_LIMITS.bodyBytes,
      // Taken when the request starts: what it does before it commits (receive and parse its body, checks,
      // summaries, compression) is what a commit about to start waits for, within a bound (db/group-commit.ts).
      onRequest: async (req) => {
        writers.set(req, syncWriter(factoryContext(req.ctx)));
      },
      onResponse: leave,
      onRequestAbort: leave,
      config: { guard: { permission: 'sessions.write' } },
      schema: {
        summary: 'Ingest agent sessions (AgentSession v1) and their images',
        tags: ['agents'],
        description:
          'Each session is validated on its own against AgentSession v1: a bad one is listed in `rejected` (index, ' +
          'id, reason) and the rest are stored. ' +
          'Idempotent: a session sent again, or in `chunk` parts, is stored and counted once; a longer version ' +
          'replaces a shorter one. ' +
          'Blobs `{ sha256, mediaType, bytes, data (base64) }` are re-hashed; a mismatch is listed in ' +
          '`rejectedBlobs`. ' +
          'A blob over 2 MiB is listed in `rejectedBlobs` (reason `blob_too_large: ...`) and the sessions are stored ' +
          'without it. ' +
          'A 2xx means everything accepted is durable. Limits: 50 sessions, 64 blobs, 8 MiB a request (413 ' +
          'payload_too_large with limit).',
        body: SyncBody,
        response: { 200: Data(SyncResult) },
      },
    },
    async (req) => ({ data: await sync(factoryContext(req.ctx), req.body, writers.get(req)) }),
  );

  app.post(
    '/agents/sync-failures',
    {
      config: { guard: { permission: 'sessions.write' } },
      schema: {
        summary: 'Report sessions the CLI gave up on',
        tags: ['agents'],
        description:
          'The CLI reports the sessions it could not send and will not retry (one too large for the gateway even ' +
          'alone), so the factory hears of them: each is announced as a `session.failed_sync` notification, once ' +
          'per sender, session id and reason however often it is reported. Nothing else is stored.',
        body: Type.Object(
          {
            failures: Type.Array(
              Type.Object(
                {
                  sessionId: Type.String({ minLength: 1, maxLength: 500 }),
                  reason: Type.String({ minLength: 1, maxLength: 500 }),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: 50 },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Data(Type.Object({ reported: Type.Integer({ description: 'failures received' }) })) },
      },
    },
    async (req) => ({ data: { reported: await reportSyncFailures(factoryContext(req.ctx), req.body.failures) } }),
  );

  app.get(
    '/agents/blob/:sha256',
    {
      config: { guard: { permission: 'sessions.read' } },
      schema: {
        summary: 'Read a session image by its sha256',
        tags: ['agents'],
        description:
          'The bytes with their media type. Content-addressed, so the answer never changes: cached as immutable.',
        params: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }),
        response: {
          200: Bytes(
            ['*/*'],
            'The bytes, with the media type they were synced with. Every answer carries `X-Content-Type-Options: ' +
              'nosniff` and a sandboxing Content-Security-Policy; HTML, SVG and other XML or script types are sent ' +
              'as attachments.',
            {
              ETag: { type: 'string', description: 'The quoted sha256; send it back in `If-None-Match`.' },
              'Content-Security-Policy': {
                type: 'string',
                description: 'A sandboxing policy: no script, no subresources but images.',
              },
              'Content-Disposition': {
                type: 'string',
                description: '`attachment` for active media types (HTML, SVG, XML, script); absent otherwise.',
              },
            },
          ),
          304: NoBody('Not Modified: `If-None-Match` named this blob.'),
        },
      },
    },
    async (req, reply) => {
      const blob = await getBlob(factoryContext(req.ctx), req.params.sha256);
      const etag = `"${req.params.sha256}"`;
      reply.header('Cache-Control', 'private, max-age=31536000, immutable');
      reply.header('ETag', etag);
      reply.header('X-Content-Type-Options', 'nosniff');
      // A client may sync any media type, HTML and SVG included: the same rules as artifact content, so no blob
      // can run script in the gateway's origin (an opaque sandboxed origin if rendered, a download if active).
      reply.header('Content-Security-Policy', BLOB_CSP);
      reply.header('Cross-Origin-Resource-Policy', 'same-origin');
      if (isActiveContent(blob.mediaType)) reply.header('Content-Disposition', 'attachment');
      if (req.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type(blob.mediaType).send(blob.bytes);
    },
  );
};
