// OTLP/HTTP in: POST /v1/logs, /v1/metrics and /v1/traces, protobuf or JSON, plain or gzip, with the sync's
// credentials (a factory key in Authorization, the factory in X-Outerlayer-App-Id). Answers are OTLP's own, in
// the encoding of the request: an ExportServiceResponse (with partialSuccess when records were not kept), and
// for a request refused, a google.rpc.Status with the same status code and headers (Retry-After).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { factoryContext, type App, type AreaRoutes } from '../../server/context.js';
import { ApiError, apiError } from '../../server/errors.js';
import { isStoreUnavailable } from '../../server/error-handler.js';
import { decodeLogs, decodeRequest, encodingOf, OTLP_LIMITS, type Encoding } from './decode.js';
import { encodeStatus, REJECTED_FIELD, RESPONSE_TYPES, type Signal } from './proto.js';
import { exportLogs, exportMetrics, exportTraces, type ExportOutcome } from './service.js';

const PROTOBUF = 'application/x-protobuf';

const partialSuccess = (signal: Signal) => ({
  type: 'object',
  properties: {
    partialSuccess: {
      type: 'object',
      properties: {
        [REJECTED_FIELD[signal]]: {
          type: ['integer', 'string'],
          description: 'how many records were not kept (0 or absent: all were)',
        },
        errorMessage: { type: 'string', description: 'why, when some were not kept' },
      },
    },
  },
});

/** The 200 answer, documented for both encodings (plain JSON Schema: the body is written as bytes or text). */
const ExportResponse = (signal: Signal) => ({
  description:
    'The export was stored (what was kept is durable). In the encoding of the request: an OTLP ' +
    'ExportServiceResponse, ' +
    '`partialSuccess` naming how many records were not kept and why.',
  content: {
    [PROTOBUF]: { schema: { type: 'string', format: 'binary' } },
    'application/json': { schema: partialSuccess(signal) },
  },
});

function answer(reply: FastifyReply, signal: Signal, encoding: Encoding, outcome: ExportOutcome) {
  const body = outcome.rejected
    ? { partialSuccess: { [REJECTED_FIELD[signal]]: outcome.rejected, errorMessage: outcome.message } }
    : {};
  if (encoding === 'json') return reply.status(200).type('application/json').send(JSON.stringify(body));
  const type = RESPONSE_TYPES[signal];
  return reply
    .status(200)
    .type(PROTOBUF)
    .send(Buffer.from(type.encode(type.fromObject(body)).finish()));
}

/** google.rpc.Code by HTTP status (the mapping gRPC gateways use). */
const grpcCodeOf = (status: number): number =>
  ({ 400: 3, 401: 16, 403: 7, 404: 5, 413: 8, 415: 3, 429: 8, 503: 14 })[status] ?? (status >= 500 ? 13 : 3);

/**
 * A refused request answers OTLP's google.rpc.Status in the request's encoding: protobuf, or JSON (`code` and
 * `message`, beside the gateway's usual `error` envelope), with the error's headers (Retry-After on 429 and
 * 503, which an exporter honours before it retries).
 */
function otlpErrors(error: FastifyError | ApiError | Error, req: FastifyRequest, reply: FastifyReply) {
  let err: ApiError | null = error instanceof ApiError ? error : null;
  const fe = error as FastifyError;
  if (!err && (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe.statusCode === 413))
    err = apiError('payload_too_large', 'The body is larger than a request may be.', { limit: OTLP_LIMITS.bodyBytes });
  if (!err && isStoreUnavailable(error)) {
    req.log.error({ err: error, requestId: req.id }, 'data store unavailable');
    err = apiError('store_unavailable', 'A data store did not answer; retry shortly.', {}, { 'Retry-After': '5' });
  }
  if (!err || (err.status >= 500 && err.code !== 'store_unavailable')) throw error;
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  const code = grpcCodeOf(err.status);
  if (encodingOf(req.headers['content-type']) === 'protobuf')
    return reply
      .status(err.status)
      .type(PROTOBUF)
      .send(Buffer.from(encodeStatus(code, err.message)));
  return reply
    .status(err.status)
    .type('application/json')
    .send({ code, message: err.message, error: { code: err.code, message: err.message, ...err.extra } });
}

const SIGNALS = [
  ['logs', 'Export agent events (OTLP logs)'],
  ['metrics', 'Export metrics (OTLP)'],
  ['traces', 'Export spans (OTLP)'],
] as const;

export const otlpRoutes: AreaRoutes = (app: App) => {
  // This area reads its bodies as bytes: protobuf, and JSON too (decoded by the OpenTelemetry definitions,
  // after gzip when Content-Encoding says so). The parsers are this area's alone.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    ['application/json', PROTOBUF, 'application/protobuf'],
    { parseAs: 'buffer', bodyLimit: OTLP_LIMITS.bodyBytes },
    (_req, body, done) => done(null, body),
  );
  app.setErrorHandler(otlpErrors);

  for (const [signal, summary] of SIGNALS) {
    app.post(
      `/${signal}`,
      {
        bodyLimit: OTLP_LIMITS.bodyBytes,
        config: { guard: { permission: 'sessions.write' }, rateLimit: 'otlp-ingest' },
        schema: {
          summary,
          tags: ['otlp'],
          description:
            'OTLP/HTTP (protobuf `application/x-protobuf` or JSON `application/json`, optionally `Content-Encoding: ' +
            'gzip`), ' +
            'with the credentials of POST /v1/agents/sync (set through OTEL_EXPORTER_OTLP_HEADERS). ' +
            (signal === 'logs'
              ? "Claude Code's and Codex's events become sessions (docs/telemetry.md); other records are not kept " +
                'and are counted in partialSuccess. '
              : signal === 'metrics'
                ? "Claude Code's usage metrics (claude_code.cost.usage, token.usage, lines_of_code.count, " +
                  'commit.count, ' +
                  'pull_request.count, active_time.total, code_edit_tool.decision; delta or cumulative sums) become ' +
                  'daily ' +
                  'rollups per actor and model; other points are counted in partialSuccess. '
                : 'Decoded and counted; not kept (every span is counted in partialSuccess). ') +
            `Idempotent: a record sent again is stored once. Limits: ${OTLP_LIMITS.bodyBytes} bytes as sent, ` +
            `${OTLP_LIMITS.inflatedBytes} inflated ` +
            `(413), ${OTLP_LIMITS.records} records a request (413); a record with more than ${OTLP_LIMITS.attributes}` +
            ` attributes, a value over ` +
            `${OTLP_LIMITS.attributeChars} characters or nested deeper than ${OTLP_LIMITS.attributeDepth} levels is ` +
            `not kept (partialSuccess). ` +
            "An undecodable body answers 400; 429 past the org's otlp-ingest rate limit and 503 when a store does " +
            'not ' +
            'answer or the gateway is storing as many exports as it can, both with Retry-After. A refused request ' +
            'answers a google.rpc.Status in its encoding (in JSON `code` and `message`, beside the error envelope).',
          response: { 200: ExportResponse(signal) },
        },
      },
      async (req, reply) => {
        const encoding = encodingOf(req.headers['content-type']);
        if (!encoding) throw apiError('unsupported_media_type', 'Send application/x-protobuf or application/json.');
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const ctx = factoryContext(req.ctx);
        const contentEncoding = req.headers['content-encoding'];
        let outcome: ExportOutcome;
        if (signal === 'logs') outcome = await exportLogs(ctx, () => decodeLogs(encoding, raw, contentEncoding));
        else if (signal === 'metrics')
          outcome = await exportMetrics(ctx, decodeRequest('metrics', encoding, raw, contentEncoding));
        else outcome = exportTraces(decodeRequest('traces', encoding, raw, contentEncoding));
        return answer(reply, signal, encoding, outcome);
      },
    );
  }
};
