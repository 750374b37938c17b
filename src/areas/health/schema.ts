// The health area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { Literals } from '../../server/schemas.js';

export const DependencyCheck = Type.Object({
  name: Literals(['database', 'rate_limits', 'blobs']),
  kind: Type.String({ description: 'What backs the dependency: sqlite | postgres, memory | redis, fs | s3.' }),
  status: Literals(['ok', 'down']),
  critical: Type.Boolean({
    description: 'When a critical dependency is down the route answers 503 store_unavailable.',
  }),
  latencyMs: Type.Number({ minimum: 0 }),
  /** Why it is down (a short, operator-facing reason; never a stack or a credential). */
  message: Type.Optional(Type.String()),
});
export type DependencyCheck = Static<typeof DependencyCheck>;
export type CheckName = DependencyCheck['name'];

export const HealthReport = Type.Object({
  status: Literals(['ok', 'degraded'], {
    description: 'degraded: a non-critical dependency is down.',
  }),
  checks: Type.Array(DependencyCheck),
});
export type HealthReport = Static<typeof HealthReport>;
