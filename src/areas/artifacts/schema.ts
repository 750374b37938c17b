// The artifacts area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Int32, Int53, Nullable, PrNumber, Uuid, Literals } from '../../server/schemas.js';

export const ArtifactKind = Literals(['video', 'screenshot', 'report', 'log', 'file']);
export type ArtifactKind = Static<typeof ArtifactKind>;

export const Artifact = Type.Object(
  {
    id: Uuid,
    clientArtifactId: Type.String(),
    kind: ArtifactKind,
    caption: Type.String(),
    filename: Type.String(),
    mediaType: Type.String(),
    bytes: Type.Integer(),
    sha256: Type.String(),
    criterionId: Nullable(Type.String()),
    prNumber: Nullable(Type.Integer()),
    repository: Nullable(Type.String()),
    workItemId: Nullable(Type.String()),
    supersedes: Nullable(Type.String()),
    session: Nullable(Type.Object({ sessionId: Type.String(), turnIndex: Nullable(Type.Integer()) })),
    ci: Nullable(Type.Boolean({ description: 'Whether it was made in CI, as the client said; null when not said.' })),
    gitRepo: Nullable(
      Type.String({
        description:
          'The git remote the client named, normalized as session repositories are (github.com/acme/api → acme/api).',
      }),
    ),
    gitBranch: Nullable(Type.String()),
    commitSha: Nullable(Type.String()),
    emittedAt: DateTime,
    createdAt: DateTime,
    url: Type.String({ description: "The artifact's page on the dashboard: {ATTEST_PUBLIC_URL}/artifacts/{id}" }),
    contentUrl: Type.String({ description: 'Where the bytes are served (GET /v1/artifacts/{id}/content).' }),
  },
  { $id: 'Artifact' },
);
export type Artifact = Static<typeof Artifact>;

// `owner/repo` as code hosts spell it.
export const Repository = Type.String({ minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' });
// type/subtype with optional parameters (RFC 9110 §8.3.1); anything else is a bad media type (400).
const MediaType = Type.String({
  minLength: 3,
  maxLength: 200,
  pattern:
    '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*' +
    '(\\s*;\\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\\\\\\r\\n]*"|[A-Za-z0-9!#$&^_.+-]+))*$',
});

/** The body of POST /v1/artifacts: the artifact and its bytes. */
export const ArtifactBody = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    artifact: Type.Object(
      {
        clientArtifactId: Type.String({ minLength: 1, maxLength: 200 }),
        filename: Type.String({ minLength: 1, maxLength: 1024 }),
        mediaType: MediaType,
        bytes: Int53(),
        sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
        caption: Type.String({ maxLength: 4000 }),
        criterionId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        emittedAt: DateTime,
        prNumber: Type.Optional(PrNumber()),
        repository: Type.Optional(Repository),
        workItemId: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'The work item id (uuid) or its number in the factory.',
          }),
        ),
        supersedes: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'id or clientArtifactId of the artifact this one replaces.',
          }),
        ),
        session: Type.Optional(
          Type.Object(
            { sessionId: Type.String({ minLength: 1, maxLength: 200 }), turnIndex: Type.Optional(Int32()) },
            { additionalProperties: false },
          ),
        ),
        ci: Type.Optional(Type.Boolean({ description: 'Whether it ran in CI (sent by the OuterLayer CLI).' })),
        gitRepo: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 500,
            description:
              'The normalized git remote, e.g. github.com/acme/api. Stands in for a missing `repository` when ' +
              '`prNumber` is given.',
          }),
        ),
        gitBranch: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        commitSha: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{7,64}$' })),
      },
      { additionalProperties: false },
    ),
    blob: Type.Object(
      { data: Type.String({ description: 'The bytes, standard base64.' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ArtifactInput = Static<typeof ArtifactBody>['artifact'];
