// The emitted results area's contract: the routes validate and serialize with it, the service takes and
// returns its types (and the PR read embeds Check).
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PrNumber as PrNumberSchema, Ref, Uuid, Literals } from '../../server/schemas.js';

export const Repository = Type.String({ minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' });
export const PrNumber = PrNumberSchema();
export const Result = Literals(['pass', 'fail']);
const CiFacts = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Free-form facts about the CI run (provider, workflow, job, attempt...), at most 4096 characters of JSON.',
});
const Ci = Type.Union([
  CiFacts,
  Type.Boolean({ description: 'Whether it ran in CI (the OuterLayer CLI sends a boolean).' }),
]);

export const EmittedResult = Type.Object(
  {
    id: Uuid,
    clientEmitId: Type.String(),
    name: Type.String(),
    result: Result,
    link: Type.String(),
    repository: Type.String(),
    prNumber: Type.Integer(),
    headSha: Nullable(Type.String()),
    ci: Nullable(Ci),
    emittedAt: DateTime,
    createdAt: DateTime,
  },
  { $id: 'EmittedResult' },
);
export type EmittedResult = Static<typeof EmittedResult>;
export type CheckResult = EmittedResult['result'];

/** One check name on a pull request: its latest result, and the earlier ones newest first. */
export const Check = Type.Object(
  {
    ...EmittedResult.properties,
    history: Type.Array(Ref(EmittedResult), { description: 'Earlier results of the same check name, newest first.' }),
  },
  { $id: 'Check' },
);
export type Check = Static<typeof Check>;

export const EmitBody = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    emit: Type.Object(
      {
        clientEmitId: Type.String({ minLength: 1, maxLength: 200 }),
        name: Type.String({ minLength: 1, maxLength: 200 }),
        result: Result,
        link: Type.String({ minLength: 1, maxLength: 2048, description: 'The run URL (http or https): the proof.' }),
        emittedAt: DateTime,
        prNumber: PrNumber,
        repository: Type.Optional(Repository),
        gitRepo: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 500,
            description: 'The normalized git remote (github.com/acme/api); stands in for a missing repository.',
          }),
        ),
        headSha: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{7,64}$' })),
        ci: Type.Optional(Ci),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
/** What one emit carries (the body's `emit`). */
export type EmitInput = Static<typeof EmitBody>['emit'];
