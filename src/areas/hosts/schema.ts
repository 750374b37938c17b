// The hosts area's contract: the routes validate and serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Int32, Literals } from '../../server/schemas.js';

export const HostStatus = Literals(['online', 'busy', 'stale', 'offline']);
export type HostStatus = Static<typeof HostStatus>;

export const Host = Type.Object(
  {
    hostId: Type.String(),
    name: Type.String(),
    runnerVersion: Type.String(),
    capacity: Type.Integer(),
    activeJobs: Type.Integer(),
    labels: Type.Array(Type.String()),
    firstSeenAt: DateTime,
    lastHeartbeatAt: DateTime,
    status: HostStatus,
  },
  { $id: 'Host' },
);
export type Host = Static<typeof Host>;

/** POST /v1/hosts/heartbeat's body. */
export const Heartbeat = Type.Object(
  {
    hostId: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    runnerVersion: Type.String({ minLength: 1, maxLength: 64 }),
    capacity: Int32({ maximum: 10000 }),
    activeJobs: Int32({ maximum: 10000 }),
    labels: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
export type Heartbeat = Static<typeof Heartbeat>;
