// Wire shapes of outbound notifications: a channel, a delivery, and the events (versioned; each event's
// schema is a component of the OpenAPI document, so a receiver can validate what it is sent).
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid, Literals } from '../../server/schemas.js';

/** Events a channel can subscribe to (the `test` event is sent on demand to any channel). */
export const EVENT_TYPES = [
  'budget.threshold',
  'budget.forecast',
  'pr.verdict',
  'session.failed_sync',
  'host.offline',
  'work_item.claim_expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number] | 'test';

export const ChannelKind = Literals(['webhook', 'slack']);
export type ChannelKind = Static<typeof ChannelKind>;

export const EventTypeName = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)));

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Url = Type.String({ minLength: 1, maxLength: 2000 });
const Events = Type.Array(EventTypeName, { maxItems: 20 });

/** The body of POST /v1/notification-channels. */
export const ChannelInput = Type.Object(
  { name: Name, kind: ChannelKind, url: Url, events: Type.Optional(Events) },
  { additionalProperties: false },
);
/** What the service reads: `events` defaults to none. */
export type ChannelInput = Static<typeof ChannelInput> & Required<Pick<Static<typeof ChannelInput>, 'events'>>;

/** The body of PATCH /v1/notification-channels/{id}; `enabled: true` re-enables a disabled channel. */
export const ChannelPatch = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ChannelPatch = Static<typeof ChannelPatch>;

export const NotificationChannel = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    kind: ChannelKind,
    url: Type.String({
      description: "A webhook's URL; a Slack channel's incoming-webhook URL is a credential and is shown cut short.",
    }),
    events: Type.Array(EventTypeName),
    enabled: Type.Boolean(),
    disabledReason: Nullable(Type.String({ description: 'Why the gateway disabled the channel (repeated failures).' })),
    consecutiveFailures: Type.Integer(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'NotificationChannel' },
);
export type NotificationChannel = Static<typeof NotificationChannel>;

export const NotificationDelivery = Type.Object(
  {
    id: Uuid,
    channelId: Uuid,
    eventId: Type.String({ description: 'The idempotency key: the same on every attempt and redelivery.' }),
    eventType: Type.String(),
    status: Literals(['pending', 'succeeded', 'failed']),
    attempts: Type.Integer(),
    responseCode: Nullable(Type.Integer()),
    latencyMs: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    requestBody: Nullable(Type.String({ description: 'The body last sent (kept 7 days).' })),
    responseBody: Nullable(Type.String({ description: "The answer's first 2 KiB (kept 7 days)." })),
    createdAt: DateTime,
    lastAttemptAt: Nullable(DateTime),
    nextAttemptAt: Nullable(DateTime),
    deliveredAt: Nullable(DateTime),
  },
  { $id: 'NotificationDelivery' },
);
export type NotificationDelivery = Static<typeof NotificationDelivery>;

const Money = Type.Number({ description: 'US dollars' });

export const BudgetNoticeData = Type.Object({
  budget: Type.Object({
    id: Uuid,
    name: Type.String(),
    scope: Type.Object({ kind: Type.String(), value: Nullable(Type.String()) }),
    amountUsd: Money,
    period: Type.String(),
    timeZone: Type.String(),
  }),
  period: Type.Object({ start: DateTime, end: DateTime, key: Type.String() }),
  spendUsd: Money,
  percent: Type.Number({ description: 'spendUsd / amountUsd × 100 (forecastUsd for budget.forecast)' }),
  threshold: Type.Integer({ description: 'The percentage crossed (100 for a forecast).' }),
  forecastUsd: Nullable(Money),
  projection: Type.Boolean({ description: 'true for budget.forecast: the amount is projected, not spent.' }),
  topSessions: Type.Array(
    Type.Object({ traceId: Type.String(), title: Nullable(Type.String()), actorName: Type.String(), costUsd: Money }),
  ),
  topActors: Type.Array(Type.Object({ actorId: Type.String(), actorName: Type.String(), costUsd: Money })),
  url: Type.String({ description: "The budget's dashboard page." }),
});
export type BudgetNoticeData = Static<typeof BudgetNoticeData>;

export const PrVerdictData = Type.Object({
  repository: Type.String({ description: 'owner/name, lower case' }),
  number: Type.Integer(),
  title: Nullable(Type.String()),
  headSha: Nullable(Type.String()),
  verdict: Type.String({ description: 'clean | review | unverifiable | waiting | none' }),
  previousVerdict: Nullable(Type.String({ description: 'The verdict stored before; null for the first one.' })),
  flagged: Type.Integer(),
  rows: Type.Array(
    Type.Object({ validator: Type.String(), status: Type.String(), level: Type.String(), sentence: Type.String() }),
    { description: 'The rows that did not pass (info rows left out), ordered as on the PR.' },
  ),
  evaluatedAt: DateTime,
  url: Type.String({ description: "The pull request's dashboard page." }),
});
export type PrVerdictData = Static<typeof PrVerdictData>;

export const SessionFailedSyncData = Type.Object({
  sessionId: Nullable(Type.String({ description: "The AgentSession's id as sent; null when it had none." })),
  reason: Type.String({ description: 'Why the gateway refused it; sending it again is refused again.' }),
  actorId: Type.String(),
  actorName: Type.String(),
  rejectedAt: DateTime,
});
export type SessionFailedSyncData = Static<typeof SessionFailedSyncData>;

export const HostOfflineData = Type.Object({
  hostId: Type.String(),
  name: Type.String(),
  runnerVersion: Type.String(),
  labels: Type.Array(Type.String()),
  lastHeartbeatAt: DateTime,
  offlineAfterSeconds: Type.Integer({ description: 'The silence after which a host counts as offline.' }),
  url: Type.String({ description: "The dashboard's hosts page." }),
});
export type HostOfflineData = Static<typeof HostOfflineData>;

export const ClaimExpiredData = Type.Object({
  workItem: Type.Object({ id: Uuid, number: Type.Integer(), title: Type.String() }),
  claim: Type.Object({
    id: Uuid,
    source: Type.String(),
    branch: Nullable(Type.String()),
    claimedAt: DateTime,
    expiresAt: DateTime,
  }),
  url: Type.String({ description: "The work item's dashboard page." }),
});
export type ClaimExpiredData = Static<typeof ClaimExpiredData>;

const envelope = <T extends string>(type: T, data: ReturnType<typeof Type.Object>, id: string) =>
  Type.Object(
    {
      id: Type.String(),
      type: Type.Literal(type),
      version: Type.Literal(1),
      createdAt: DateTime,
      appId: Uuid,
      data,
    },
    { $id: id, description: `The body POSTed to a webhook channel for ${type} (version 1).` },
  );

export const BudgetThresholdEvent = envelope('budget.threshold', BudgetNoticeData, 'BudgetThresholdEventV1');
export const BudgetForecastEvent = envelope('budget.forecast', BudgetNoticeData, 'BudgetForecastEventV1');
export const PrVerdictEvent = envelope('pr.verdict', PrVerdictData, 'PrVerdictEventV1');
export const SessionFailedSyncEvent = envelope(
  'session.failed_sync',
  SessionFailedSyncData,
  'SessionFailedSyncEventV1',
);
export const HostOfflineEvent = envelope('host.offline', HostOfflineData, 'HostOfflineEventV1');
export const ClaimExpiredEvent = envelope('work_item.claim_expired', ClaimExpiredData, 'WorkItemClaimExpiredEventV1');
export const TestEvent = envelope('test', Type.Object({ message: Type.String() }), 'TestEventV1');

export interface NotificationEvent {
  id: string;
  type: EventType;
  version: 1;
  createdAt: string;
  appId: string;
  data:
    | BudgetNoticeData
    | PrVerdictData
    | SessionFailedSyncData
    | HostOfflineData
    | ClaimExpiredData
    | { message: string };
}
