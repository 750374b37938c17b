// Runner hosts: POST /v1/hosts/heartbeat upserts the calling host; GET /v1/hosts lists the factory's hosts
// with a status derived at read time.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Ref } from '../../server/schemas.js';
import { Heartbeat, Host } from './schema.js';
import { heartbeat, listHosts } from './service.js';

export const hostsRoutes: AreaRoutes = (app) => {
  app.post(
    '/hosts/heartbeat',
    {
      config: { guard: { permission: 'hosts.write' } },
      schema: {
        summary: "A runner host's heartbeat",
        tags: ['hosts'],
        description:
          'Creates the host on its first heartbeat and refreshes it on every later one (keyed by hostId within the ' +
          'factory).',
        body: Heartbeat,
        response: { 200: Data(Ref(Host)) },
      },
    },
    async (req) => ({ data: await heartbeat(factoryContext(req.ctx), req.body) }),
  );

  app.get(
    '/hosts',
    {
      config: { guard: { permission: 'hosts.read' } },
      schema: {
        summary: "The factory's runner hosts with their derived status",
        tags: ['hosts'],
        description:
          'status: online (last heartbeat ≤ 90 s ago, activeJobs below capacity), busy (≤ 90 s, at capacity), stale ' +
          '(≤ 10 min), offline (older). Computed at read time.',
        response: { 200: Data(Type.Array(Ref(Host))) },
      },
    },
    async (req) => ({ data: await listHosts(factoryContext(req.ctx)) }),
  );
};
