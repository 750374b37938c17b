// Artifacts: POST /v1/artifacts, GET /v1/artifacts (by pull request), GET /v1/artifacts/{id},
// GET /v1/artifacts/{id}/content (bytes, Range), GET /v1/work-items/{workItemId}/artifacts and
// GET /v1/me/artifacts/{id} (an artifact by id alone, in whichever of the caller's factories holds it).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { Bytes, Data, Uuid, PrNumber as PrNumberSchema, Ref } from '../../server/schemas.js';
import { Artifact, ArtifactBody, Repository } from './schema.js';
import {
  ARTIFACT_REQUEST_LIMIT,
  createArtifact,
  findArtifactOfUser,
  getArtifact,
  isActiveContent,
  listPullRequestArtifacts,
  readContent,
} from './service.js';
import { listWorkItemArtifacts, resolveWorkItemForArtifact } from './work-item.js';

const PrNumber = PrNumberSchema();

interface ByteRange {
  start: number;
  end: number;
}

/**
 * One byte range of RFC 9110 §14.1.2. Null when the header is absent, malformed or asks for several
 * ranges (then the whole content is sent, as the RFC allows); 'unsatisfiable' when it selects nothing.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { start, end };
}

/** An RFC 6266 Content-Disposition with an ASCII fallback and the UTF-8 name. */
/** Headers of every answer of GET /v1/artifacts/{id}/content (documented in the OpenAPI document). */
const CONTENT_HEADERS = {
  ETag: { type: 'string', description: 'The quoted sha256 of the whole content; send it back in `If-Range`.' },
  'Accept-Ranges': { type: 'string', description: '`bytes`' },
  'Content-Disposition': {
    type: 'string',
    description: '`inline`, or `attachment` for HTML, SVG, XML and script types; with the filename.',
  },
} as const;

function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export const artifactsRoutes: AreaRoutes = (app) => {
  app.post(
    '/artifacts',
    {
      bodyLimit: ARTIFACT_REQUEST_LIMIT,
      config: { guard: { permission: 'artifacts.write' } },
      schema: {
        summary: 'Upload an evidence artifact',
        tags: ['artifacts'],
        description:
          'Stores the bytes (content-addressed) and the artifact, anchored to a pull request (repository + ' +
          'prNumber), a work item and/or a session. ' +
          'Idempotent on clientArtifactId: the same bytes again answer 200 with the stored artifact; other bytes ' +
          'answer 409 artifact_content_conflict. ' +
          'Limits: 12 MiB a request, 8 MiB a blob (413 payload_too_large with limit).',
        body: ArtifactBody,
        response: { 201: Data(Ref(Artifact)), 200: Data(Ref(Artifact)) },
      },
    },
    async (req, reply) => {
      const ctx = factoryContext(req.ctx);
      const { artifact, created } = await createArtifact(
        ctx,
        req.body.artifact,
        req.body.blob.data,
        resolveWorkItemForArtifact,
      );
      return reply.status(created ? 201 : 200).send({ data: artifact });
    },
  );

  app.get(
    '/artifacts',
    {
      config: { guard: { permission: 'artifacts.read' } },
      schema: {
        summary: 'List the live artifacts anchored to a pull request',
        tags: ['artifacts'],
        description: 'Oldest first; artifacts replaced by a later one are left out.',
        querystring: Type.Object({ repository: Repository, prNumber: PrNumber }, { additionalProperties: false }),
        response: { 200: Data(Type.Array(Ref(Artifact))) },
      },
    },
    async (req) => ({
      data: await listPullRequestArtifacts(factoryContext(req.ctx), req.query.repository, req.query.prNumber),
    }),
  );

  app.get(
    '/artifacts/:id',
    {
      config: { guard: { permission: 'artifacts.read' } },
      schema: {
        summary: 'Read one artifact',
        tags: ['artifacts'],
        params: Type.Object({ id: Uuid }),
        response: { 200: Data(Ref(Artifact)) },
      },
    },
    async (req) => ({ data: await getArtifact(factoryContext(req.ctx), req.params.id) }),
  );

  app.get(
    '/me/artifacts/:id',
    {
      // A login token (or the dashboard session made from one) with no factory header: its owner's factories.
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: 'Find an artifact by its id in any factory the caller belongs to',
        tags: ['artifacts', 'account'],
        description:
          "An artifact's `url` (its dashboard page) names no factory; this finds the factory in one request. " +
          'Errors: 400 invalid_path_params, 404 artifact_not_found (no such artifact in any factory of yours, which ' +
          "is also the answer for another org's).",
        params: Type.Object({ id: Uuid }),
        response: { 200: Data(Type.Object({ appId: Uuid, artifact: Ref(Artifact) })) },
      },
    },
    async (req) => ({ data: await findArtifactOfUser(req.ctx, req.params.id) }),
  );

  app.get(
    '/artifacts/:id/content',
    {
      config: { guard: { permission: 'artifacts.read', appIdFromQuery: true, signedUrl: 'artifact-content' } },
      schema: {
        summary: "Read an artifact's bytes",
        tags: ['artifacts'],
        description:
          'Streams the bytes with their media type. Supports a single `Range: bytes=` range (206 Partial Content; ' +
          '416 range_not_satisfiable with `Content-Range: bytes */size`). ' +
          'HTML, SVG and other XML or script types are sent as attachments; every answer carries ' +
          '`X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy, so no artifact can run ' +
          'script in the gateway origin. ' +
          'With the dashboard session cookie (a media element sends no headers), `?appId=` may name the factory in ' +
          'place of X-Outerlayer-App-Id. ' +
          'Without Authorization, a signed URL (`?appId=&exp=&sig=`, as the PR comment embeds for screenshots) opens ' +
          'this one artifact until `exp` (at most 8 days); an invalid or expired signature is 401 unauthorized.',
        params: Type.Object({ id: Uuid }),
        querystring: Type.Object({
          appId: Type.Optional(Uuid),
          exp: Type.Optional(Type.String({ maxLength: 20, description: 'Expiry of a signed URL (Unix seconds).' })),
          sig: Type.Optional(Type.String({ maxLength: 128, description: 'Signature of a signed URL.' })),
        }),
        response: {
          200: Bytes(['*/*'], 'The whole content, with the media type it was stored with.', CONTENT_HEADERS),
          206: Bytes(['*/*'], 'The requested range of the content.', {
            ...CONTENT_HEADERS,
            'Content-Range': { type: 'string', description: '`bytes first-last/size`' },
          }),
        },
      },
    },
    async (req, reply) => {
      const { artifact, bytes } = await readContent(factoryContext(req.ctx), req.params.id);
      const size = bytes.length;
      const etag = `"${artifact.sha256}"`;
      // If-Range naming another version means "send it all" (RFC 9110 §13.1.5).
      const ifRange = req.headers['if-range'];
      const rangeHeader = ifRange === undefined || ifRange === etag ? req.headers.range : undefined;
      const range = parseRange(rangeHeader, size);
      if (range === 'unsatisfiable') {
        throw apiError(
          'range_not_satisfiable',
          `The range "${String(rangeHeader).slice(0, 100)}" selects no byte of ${size}.`,
          { size },
          {
            'Content-Range': `bytes */${size}`,
            'Accept-Ranges': 'bytes',
          },
        );
      }
      reply.header('X-Content-Type-Options', 'nosniff');
      // Even if a browser renders it, the document gets an opaque origin, no script and no subresources.
      reply.header(
        'Content-Security-Policy',
        "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox",
      );
      reply.header('Cross-Origin-Resource-Policy', 'same-origin');
      reply.header(
        'Content-Disposition',
        contentDisposition(isActiveContent(artifact.media_type) ? 'attachment' : 'inline', artifact.filename),
      );
      reply.header('Cache-Control', 'private, max-age=0, must-revalidate');
      reply.header('Accept-Ranges', 'bytes');
      reply.header('ETag', etag);
      reply.type(artifact.media_type);
      if (range) {
        reply.status(206);
        reply.header('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
        return reply.send(bytes.subarray(range.start, range.end + 1));
      }
      return reply.send(bytes);
    },
  );

  app.get(
    '/work-items/:id/artifacts',
    {
      config: { guard: { permission: 'artifacts.read' } },
      schema: {
        summary: 'List the live artifacts of a work item',
        tags: ['artifacts', 'work-items'],
        description:
          'Oldest first: artifacts anchored to the item, to a pull request declared onto it, or emitted from a ' +
          'session linked to it ' +
          '(a session that emitted an artifact naming the item). Replaced artifacts are left out. At most 200, the ' +
          'oldest kept; ' +
          '`pagination.truncated` is true when more exist. `workItemId` is the item id or its number in the factory. ' +
          'Errors: 400 invalid_path_params, 403 forbidden (needs artifacts.read), 404 work_item_not_found.',
        // Named `id` like the work-items area's other routes on this path (one router node); the spec calls it
        // workItemId.
        params: Type.Object({
          id: Type.String({
            pattern: '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[1-9][0-9]{0,14})$',
            description: 'The work item id (uuid) or its number in the factory.',
          }),
        }),
        response: {
          200: Type.Object({ data: Type.Array(Ref(Artifact)), pagination: Type.Object({ truncated: Type.Boolean() }) }),
        },
      },
    },
    async (req) => listWorkItemArtifacts(factoryContext(req.ctx), req.params.id),
  );
};
