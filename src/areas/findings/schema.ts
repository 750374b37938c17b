// The findings area's contract: the routes validate and serialize with it, the service takes and returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Int32, Nullable, PrNumber, Uuid } from '../../server/schemas.js';

export const ABOUT = ['change', 'rule'] as const;
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;

export const Finding = Type.Object(
  {
    id: Uuid,
    workItemId: Uuid,
    source: Type.String(),
    about: Type.String(),
    severity: Type.String(),
    title: Type.String(),
    body: Nullable(Type.String()),
    path: Nullable(Type.String()),
    line: Nullable(Type.Integer()),
    rule: Nullable(Type.String()),
    prNumber: Nullable(Type.Integer()),
    createdAt: DateTime,
  },
  { $id: 'Finding' },
);
export type Finding = Static<typeof Finding>;

export const FindingInput = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 200 }),
    about: Type.Union(ABOUT.map((a) => Type.Literal(a))),
    severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    body: Type.Optional(Type.String({ maxLength: 65536 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    line: Type.Optional(Int32({ minimum: 1 })),
    rule: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    prNumber: Type.Optional(PrNumber()),
  },
  { additionalProperties: false },
);
export type FindingInput = Static<typeof FindingInput>;
