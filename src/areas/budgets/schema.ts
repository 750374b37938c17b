// Wire shapes of budgets: what is limited (scope), by how much, over which period, and where its notices go.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid, Literals } from '../../server/schemas.js';

export const BudgetScope = Type.Union(
  [
    Type.Object({ kind: Type.Literal('factory') }, { additionalProperties: false }),
    Type.Object(
      { kind: Type.Literal('actor'), actorId: Type.String({ minLength: 1, maxLength: 500 }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('repository'),
        repository: Type.String({ minLength: 3, maxLength: 500, pattern: '^[^/\\s]+/[^/\\s]+$' }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        kind: Type.Literal('attribute'),
        key: Type.String({ minLength: 1, maxLength: 200, description: 'A telemetry resource attribute, e.g. team' }),
        value: Type.String({ minLength: 1, maxLength: 500, description: 'Its value, e.g. payments' }),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      "What the budget limits: the whole factory, one actor's sessions, one repository's, or the sessions whose " +
      'telemetry carried a resource attribute (OTEL_RESOURCE_ATTRIBUTES such as team=payments).',
  },
);
export type BudgetScope = Static<typeof BudgetScope>;

export const BudgetPeriod = Literals(['day', 'week', 'month'], {
  description: "Calendar periods in the budget's time zone; weeks start on Monday.",
});
export type BudgetPeriod = Static<typeof BudgetPeriod>;

export const Thresholds = Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), {
  minItems: 1,
  maxItems: 10,
  description: 'Percentages of the amount; each notifies once per period when spend reaches it.',
});

export const BudgetStatus = Type.Object({
  periodStart: DateTime,
  periodEnd: DateTime,
  spendUsd: Type.Number(),
  percent: Type.Number({ description: 'spendUsd / amountUsd × 100, two decimals' }),
  forecastUsd: Nullable(
    Type.Number({
      description:
        'Spend projected to the period end at the rate so far; null before a tenth of the period has passed.',
    }),
  ),
  burn: Type.Array(
    Type.Object({
      day: Type.String({ description: 'local date' }),
      spendUsd: Type.Number({ description: 'cumulative' }),
    }),
    { description: 'Cumulative spend at the end of each local day of the period so far (the burn-down).' },
  ),
});
export type BudgetStatus = Static<typeof BudgetStatus>;

export const Budget = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    scope: BudgetScope,
    amountUsd: Type.Number(),
    period: BudgetPeriod,
    timeZone: Type.String({ description: 'IANA time zone the periods follow (default UTC).' }),
    thresholds: Type.Array(Type.Integer()),
    notify: Type.Array(Uuid, { description: "Notification channel ids that get this budget's notices." }),
    status: BudgetStatus,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Budget' },
);
export type Budget = Static<typeof Budget>;

export const BudgetInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scope: BudgetScope,
    amountUsd: Type.Number({ exclusiveMinimum: 0, maximum: 1e9 }),
    period: BudgetPeriod,
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    thresholds: Type.Optional(Thresholds),
    notify: Type.Optional(Type.Array(Uuid, { maxItems: 20 })),
  },
  { additionalProperties: false },
);
export type BudgetInput = Static<typeof BudgetInput>;

export const BudgetPatch = Type.Partial(BudgetInput, { additionalProperties: false });
export type BudgetPatch = Static<typeof BudgetPatch>;
