// The criteria area's contract: the routes validate and serialize with it, the service takes and returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../server/schemas.js';

export const MAX_CRITERIA = 100;

const CriterionId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' });

export const Criterion = Type.Object({
  id: CriterionId,
  text: Type.String({ minLength: 1, maxLength: 4000 }),
  proof: Nullable(Type.String({ maxLength: 4000 })),
});
export type Criterion = Static<typeof Criterion>;

/** A work item's criteria; `updatedAt` is when the list was last replaced, null when it never was. */
export const CriteriaList = Type.Object({
  workItemId: Uuid,
  criteria: Type.Array(Criterion),
  updatedAt: Nullable(DateTime),
});
export type CriteriaList = Static<typeof CriteriaList>;

/** The body of PUT /v1/work-items/{id}/criteria: the whole list, in order. */
export const CriteriaBody = Type.Object(
  {
    criteria: Type.Array(
      Type.Object(
        {
          id: CriterionId,
          text: Type.String({ minLength: 1, maxLength: 4000 }),
          proof: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_CRITERIA },
    ),
  },
  { additionalProperties: false },
);
export type CriteriaInput = Static<typeof CriteriaBody>['criteria'];
