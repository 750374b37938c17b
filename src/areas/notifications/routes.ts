// Notification channels: /v1/notification-channels CRUD, POST …/{id}/test, the delivery log and redelivery.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Limit, NoContent, Offset, OffsetPage, Ref, Uuid } from '../../server/schemas.js';
import { ChannelInput, ChannelPatch, NotificationChannel, NotificationDelivery } from './schema.js';
import {
  createChannel,
  deleteChannel,
  getChannel,
  listChannels,
  listDeliveries,
  redeliver,
  sendTest,
  updateChannel,
} from './service.js';

const IdParams = Type.Object({ id: Uuid });
const tags = ['notifications'];

export const notificationsRoutes: AreaRoutes = (app) => {
  app.get(
    '/notification-channels',
    {
      config: { guard: { permission: 'notifications.read' } },
      schema: {
        summary: "The factory's notification channels",
        tags,
        response: { 200: Data(Type.Array(Ref(NotificationChannel))) },
      },
    },
    async (req) => ({ data: await listChannels(factoryContext(req.ctx)) }),
  );

  app.post(
    '/notification-channels',
    {
      config: { guard: { permission: 'notifications.write' } },
      schema: {
        summary: "Create a notification channel (a webhook's signing secret is returned once)",
        tags,
        description:
          'kind `webhook`: each delivery is POSTed as the event JSON with `X-Attest-Signature: t=<unix s>,v1=<hex ' +
          'HMAC-SHA256 of "<t>.<body>">` under the secret returned here once, `X-Attest-Event` and ' +
          '`X-Attest-Event-Id` (the idempotency key). kind `slack`: `url` is a Slack incoming-webhook URL; ' +
          'deliveries are Slack blocks. The URL must be https on a public address (ATTEST_NOTIFY_ALLOW_PRIVATE=1 ' +
          'lifts this for tests and development): 400 notification_target_refused.',
        body: ChannelInput,
        response: {
          201: Data(
            Type.Intersect([
              Ref(NotificationChannel),
              Type.Object({
                secret: Type.Union([Type.String(), Type.Null()], { description: 'webhook only; shown once' }),
              }),
            ]),
          ),
        },
      },
    },
    async (req, reply) =>
      reply.status(201).send({
        data: await createChannel(factoryContext(req.ctx), { ...req.body, events: req.body.events ?? [] }),
      }),
  );

  app.get(
    '/notification-channels/:id',
    {
      config: { guard: { permission: 'notifications.read' } },
      schema: {
        summary: 'One notification channel',
        tags,
        params: IdParams,
        response: { 200: Data(Ref(NotificationChannel)) },
      },
    },
    async (req) => ({ data: await getChannel(factoryContext(req.ctx), req.params.id) }),
  );

  app.patch(
    '/notification-channels/:id',
    {
      config: { guard: { permission: 'notifications.write' } },
      schema: {
        summary: 'Change a notification channel',
        tags,
        description: '`enabled: true` re-enables a channel the gateway disabled after repeated failures.',
        params: IdParams,
        body: ChannelPatch,
        response: { 200: Data(Ref(NotificationChannel)) },
      },
    },
    async (req) => ({ data: await updateChannel(factoryContext(req.ctx), req.params.id, req.body) }),
  );

  app.delete(
    '/notification-channels/:id',
    {
      config: { guard: { permission: 'notifications.write' } },
      schema: {
        summary: 'Delete a notification channel and its delivery log',
        tags,
        params: IdParams,
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await deleteChannel(factoryContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/notification-channels/:id/test',
    {
      config: { guard: { permission: 'notifications.write' } },
      schema: {
        summary: 'Send a test event to the channel now',
        tags,
        description:
          'Answers the delivery after its first attempt (succeeded, or pending with its retry time, or failed).',
        params: IdParams,
        response: { 201: Data(Ref(NotificationDelivery)) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await sendTest(factoryContext(req.ctx), req.params.id) }),
  );

  app.get(
    '/notification-channels/:id/deliveries',
    {
      config: { guard: { permission: 'notifications.read' } },
      schema: {
        summary: "The channel's delivery log, newest first",
        tags,
        description: 'Bodies are kept 7 days; status, response code and latency stay.',
        params: IdParams,
        querystring: Type.Object(
          { limit: Type.Optional(Limit(100, 25)), offset: Type.Optional(Offset()) },
          { additionalProperties: false },
        ),
        response: {
          200: OffsetPage(Ref(NotificationDelivery)),
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 25;
      const offset = req.query.offset ?? 0;
      const { deliveries, total } = await listDeliveries(factoryContext(req.ctx), req.params.id, limit, offset);
      return { data: deliveries, pagination: { total, limit, offset } };
    },
  );

  app.post(
    '/notification-channels/:id/deliveries/:deliveryId/redeliver',
    {
      config: { guard: { permission: 'notifications.write' } },
      schema: {
        summary: 'Send a delivery again (same event id)',
        tags,
        description: 'Queues the delivery now with a fresh retry budget; 409 delivery_body_expired past 7 days.',
        params: Type.Object({ id: Uuid, deliveryId: Uuid }),
        response: { 200: Data(Ref(NotificationDelivery)) },
      },
    },
    async (req) => ({ data: await redeliver(factoryContext(req.ctx), req.params.id, req.params.deliveryId) }),
  );
};
