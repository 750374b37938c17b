// POST /v1/webhooks/github: the code host's deliveries. The signature (X-Hub-Signature-256, HMAC of the
// exact bytes with GITHUB_WEBHOOK_SECRET) is the credential, so the route guard is 'public' and the body is
// read raw: it must be verified before it is parsed.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, Nullable } from '../../server/schemas.js';
import { handleGithubDelivery } from './service.js';

/** GitHub caps deliveries at 25 MB; pull_request and check payloads are far smaller. */
export const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const webhooksRoutes: AreaRoutes = (app) => {
  // This area's own parsers (encapsulated: other areas keep the JSON parser): keep the bytes as received.
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(
    ['application/json', 'application/x-www-form-urlencoded'],
    { parseAs: 'buffer' },
    (_req, body, done) => done(null, body),
  );

  app.post(
    '/webhooks/github',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      config: { guard: { credentials: 'public' } },
      schema: {
        summary: 'GitHub webhook deliveries (pull_request, check_suite, check_run)',
        tags: ['webhooks'],
        description:
          'Verified with X-Hub-Signature-256 and the App webhook secret (GITHUB_WEBHOOK_SECRET); 401 ' +
          '`invalid_signature` otherwise. Each delivery is applied to every factory that connected the repository ' +
          'through the same installation. Other events are acknowledged with handled=false.',
        response: {
          200: Data(
            Type.Object({
              event: Type.String(),
              action: Nullable(Type.String()),
              handled: Type.Boolean(),
              repository: Nullable(Type.String()),
              factories: Type.Integer(),
            }),
          ),
        },
      },
    },
    async (req) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      return {
        data: await handleGithubDelivery(req.ctx, {
          event: header(req.headers['x-github-event']),
          signature: header(req.headers['x-hub-signature-256']),
          contentType: header(req.headers['content-type']),
          body,
        }),
      };
    },
  );
};
