// The artifacts area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../server/schemas.js';

export const ArtifactKind = Type.Union([
  Type.Literal('video'),
  Type.Literal('screenshot'),
  Type.Literal('report'),
  Type.Literal('log'),
  Type.Literal('file'),
]);
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
