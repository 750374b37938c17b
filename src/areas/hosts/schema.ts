// The hosts area's contract: the routes validate and serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime } from '../../server/schemas.js';

export const HostStatus = Type.Union([
  Type.Literal('online'),
  Type.Literal('busy'),
  Type.Literal('stale'),
  Type.Literal('offline'),
]);
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
