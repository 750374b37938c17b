// OTLP/HTTP in (issue 41): the real OpenTelemetry JS SDK exporters (protobuf and JSON) send Claude Code's and
// Codex's documented events to a listening gateway, and the sessions they make are read back through the API;
// raw bodies cover what an exporter never sends (undecodable, oversized, hostile), retries, and tenancy.
import http from 'node:http';
import zlib from 'node:zlib';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } from '@opentelemetry/sdk-metrics';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { createTenant } from '../../helpers/gateway.js';
import { decodeStatus, REQUEST_TYPES } from '../../../src/areas/otlp/proto.js';

type Attrs = Record<string, string | number | boolean>;
interface Event {
  body: string;
  attributes: Attrs;
  at: string;
}

const EMAIL = 'dev@example.com';

describe('OTLP in', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let base: string;

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gw.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });

  const headersOf = (t: Tenant) => ({ Authorization: `Bearer ${t.factoryKey}`, 'X-Outerlayer-App-Id': t.appId });

  /** Emit `events` through the SDK's logger with a simple processor, so each export has completed on flush. */
  async function emit(exporter: LogRecordExporter, service: string, events: Event[]) {
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': service, team: 'payments' }),
      processors: [new SimpleLogRecordProcessor(exporter)],
    });
    const logger = provider.getLogger(service);
    for (const e of events) {
      logger.emit({
        body: e.body,
        timestamp: new Date(e.at),
        attributes: { 'event.name': e.body.split('.').pop()!, 'event.timestamp': e.at, ...e.attributes },
      });
    }
    await provider.forceFlush();
    await provider.shutdown();
  }

  const claude = (sessionId: string, name: string, at: string, attributes: Attrs): Event => ({
    body: `claude_code.${name}`,
    at,
    attributes: {
      'session.id': sessionId,
      'user.email': EMAIL,
      'user.account_uuid': 'acc-1',
      'app.version': '2.0.14',
      'terminal.type': 'vscode',
      ...attributes,
    },
  });

  async function sessionOf(t: Tenant, sessionId: string) {
    const list = await gw.call('GET', '/v1/sessions?repoScope=all&limit=100', { token: t.loginToken, appId: t.appId });
    expect(list.status).toBe(200);
    const matches = list.body.data.sessions.filter((s: { sessionId: string }) => s.sessionId === sessionId);
    expect(matches.length).toBeLessThanOrEqual(1);
    return matches[0];
  }

  const claudeSession = 'cc-session-1';
  const claudeEvents = [
    claude(claudeSession, 'user_prompt', '2026-11-01T11:00:00.000Z', { prompt_length: 42 }),
    claude(claudeSession, 'api_request', '2026-11-01T11:00:02.000Z', {
      model: 'claude-sonnet-4-5-20250929',
      cost_usd: 0.012345,
      duration_ms: 1800,
      input_tokens: 1200,
      output_tokens: 300,
      cache_read_tokens: 5000,
      cache_creation_tokens: 700,
    }),
    claude(claudeSession, 'tool_result', '2026-11-01T11:00:03.000Z', {
      tool_name: 'Bash',
      success: 'true',
      duration_ms: 250,
      tool_parameters: JSON.stringify({ bash_command: 'git', git_commit_id: 'abc1234def' }),
    }),
    claude(claudeSession, 'tool_result', '2026-11-01T11:00:04.000Z', {
      tool_name: 'Edit',
      success: 'false',
      error: 'old_string not found; token=sk-ant-abcdefghijklmnopqrstuvwxyz',
      duration_ms: 12,
    }),
    claude(claudeSession, 'tool_decision', '2026-11-01T11:00:05.000Z', {
      tool_name: 'Write',
      decision: 'reject',
      source: 'user_reject',
    }),
    claude(claudeSession, 'api_error', '2026-11-01T11:00:06.000Z', {
      model: 'claude-sonnet-4-5-20250929',
      error: 'overloaded',
      status_code: '529',
      attempt: 1,
    }),
    claude(claudeSession, 'api_request', '2026-11-01T11:00:09.000Z', {
      model: 'claude-haiku-4-5-20251001',
      cost_usd: 0.004567,
      duration_ms: 900,
      input_tokens: 800,
      output_tokens: 100,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
    }),
  ];

  it("Claude Code's events (protobuf exporter) make one live session with its exact cost and tokens", async () => {
    await emit(new ProtoLogExporter({ url: `${base}/v1/logs`, headers: headersOf(a) }), 'claude-code', claudeEvents);
    const s = await sessionOf(a, claudeSession);
    expect(s).toBeDefined();
    expect(s.captureSource).toBe('telemetry');
    expect(s.captureTier).toBe('metrics');
    expect(s.agentType).toBe('claude-code');
    expect(s.agentVersion).toBe('2.0.14');
    // 0.012345 + 0.004567, as reported; not the price table's figure for these tokens.
    expect(s.costUsd).toBe(0.016912);
    expect(s.costStatus).toBe('complete');
    expect(s.tokens).toMatchObject({ input: 2000, output: 400, cacheRead: 5000, cacheWrite: 700 });
    expect(s.models).toEqual(['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929']);
    // user prompt + 2 API requests; Bash ok, Edit failed, Write denied; one API error
    expect(s).toMatchObject({
      turnCount: 3,
      userTurnCount: 1,
      toolCallCount: 3,
      toolErrorCount: 1,
      rejectedToolCallCount: 1,
      apiErrorCount: 1,
      startedAt: '2026-11-01T11:00:00.000Z',
      endedAt: '2026-11-01T11:00:09.000Z',
      actorId: EMAIL,
      actorName: EMAIL,
    });

    const detail = await gw.call('GET', `/v1/sessions/${s.traceId}`, { token: a.loginToken, appId: a.appId });
    expect(detail.status).toBe(200);
    expect(detail.body.data.turns[1]).toMatchObject({ role: 'assistant', costUsd: 0.012345, durationMs: 1800 });
    expect(detail.body.data.outcome).toEqual({ commitShas: ['abc1234def'] });
    // Kept strings are scrubbed as the CLI scrubs a transcript; no prompt or tool text is kept at all.
    expect(detail.text).not.toContain('sk-ant-abcdefghijklmnop');
    expect(detail.text).not.toContain('bash_command');
  });

  it('the same batch sent again (an exporter retry) is stored once', async () => {
    const bytes = logsRequest([
      claude(claudeSession, 'api_request', '2026-11-01T11:01:00.000Z', { cost_usd: 1.5, model: 'm' }),
    ]);
    for (let i = 0; i < 2; i++) {
      const r = await post(a, '/v1/logs', bytes, 'application/x-protobuf');
      expect(r.statusCode).toBe(200);
      expect(r.rawPayload.length).toBe(0); // an empty ExportLogsServiceResponse: everything kept
    }
    const s = await sessionOf(a, claudeSession);
    expect(s.costUsd).toBe(1.516912);
    expect(s.turnCount).toBe(4);
    // A batch holding a stored record and a new one: only the new one is added.
    const request = (at: string, cost: number) =>
      claude('cc-overlap', 'api_request', at, { cost_usd: cost, model: 'm' });
    const [first, second] = [request('2026-11-01T11:01:00.000Z', 1.5), request('2026-11-01T11:02:00.000Z', 0.25)];
    for (const batch of [[first], [first, second]])
      expect((await post(a, '/v1/logs', logsRequest(batch), 'application/x-protobuf')).statusCode).toBe(200);
    expect(await sessionOf(a, 'cc-overlap')).toMatchObject({ costUsd: 1.75, turnCount: 2 });
  });

  it('a batch of many events over sessions, sent again with new ones among them, stores each event once', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, i)).toISOString();
    const request = (session: string, i: number) =>
      claude(session, 'api_request', at(i), { cost_usd: 0.01, model: 'm', input_tokens: 1 });
    // 100 and 50 events of two sessions, interleaved; then all of them again with 30 later ones of each.
    const first = Array.from({ length: 150 }, (_, i) => request(i % 3 === 2 ? 'cc-many-b' : 'cc-many-a', i));
    const later = Array.from({ length: 60 }, (_, i) => request(i % 2 ? 'cc-many-b' : 'cc-many-a', 200 + i));
    const again = first.flatMap((e, i) => (i % 5 === 0 && later.length ? [e, later.pop()!] : [e]));
    for (const batch of [first, [...again, ...later]]) {
      const r = await post(a, '/v1/logs', logsRequest(batch), 'application/x-protobuf');
      expect(r.statusCode).toBe(200);
      expect(r.rawPayload.length).toBe(0);
    }
    expect(await sessionOf(a, 'cc-many-a')).toMatchObject({ turnCount: 130, tokens: { input: 130 } });
    expect(await sessionOf(a, 'cc-many-b')).toMatchObject({ turnCount: 80, tokens: { input: 80 } });
  });

  it('exports naming the same sessions at once, in different orders, all store every event', async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 10, 1, 13, 0, i)).toISOString();
    // Three sessions of two people in each of six exports, each export naming them in another order; every
    // export's events are its own. On PostgreSQL the exports' transactions run at once and take each
    // session's lock: none may deadlock, refuse or lose an event.
    const person = (session: string) => (session === 'cc-conc-c' ? 'other@example.com' : EMAIL);
    const orders = [
      ['cc-conc-a', 'cc-conc-b', 'cc-conc-c'],
      ['cc-conc-c', 'cc-conc-b', 'cc-conc-a'],
      ['cc-conc-b', 'cc-conc-a', 'cc-conc-c'],
    ];
    const exports = Array.from({ length: 6 }, (_, n) =>
      orders[n % 3]!.flatMap((session, s) =>
        Array.from({ length: 4 }, (_, k) =>
          claude(session, 'api_request', at(n * 12 + s * 4 + k), {
            'user.email': person(session),
            cost_usd: 0.01,
            model: 'm',
            input_tokens: 1,
          }),
        ),
      ),
    );
    const answers = await Promise.all(
      exports.map((e) => post(a, '/v1/logs', logsRequest(e), 'application/x-protobuf')),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const session of ['cc-conc-a', 'cc-conc-b', 'cc-conc-c'])
      expect(await sessionOf(a, session)).toMatchObject({
        turnCount: 24,
        tokens: { input: 24 },
        actorId: person(session),
        actorName: person(session),
      });
  });

  it('events sent over several batches (in order, and one late) make the same session as one batch', async () => {
    const as = (id: string) => claudeEvents.map((e) => ({ ...e, attributes: { ...e.attributes, 'session.id': id } }));
    const whole = as('cc-whole');
    const split = as('cc-split');
    expect((await post(a, '/v1/logs', logsRequest(whole), 'application/x-protobuf')).statusCode).toBe(200);
    // Later events folded in twice, then the api_error of 11:00:06 after the request of 11:00:09 (a rebuild).
    for (const part of [split.slice(0, 2), split.slice(2, 5), split.slice(6), split.slice(5, 6)])
      expect((await post(a, '/v1/logs', logsRequest(part), 'application/x-protobuf')).statusCode).toBe(200);
    for (const id of ['cc-whole', 'cc-split']) {
      const s = await sessionOf(a, id);
      expect(s.costUsd).toBe(0.016912); // 0.012345 + 0.004567
      expect(s.tokens).toMatchObject({ input: 2000, output: 400, cacheRead: 5000, cacheWrite: 700 });
      expect(s).toMatchObject({
        turnCount: 3,
        userTurnCount: 1,
        toolCallCount: 3,
        toolErrorCount: 1,
        rejectedToolCallCount: 1,
        apiErrorCount: 1,
        startedAt: '2026-11-01T11:00:00.000Z',
        endedAt: '2026-11-01T11:00:09.000Z',
      });
    }
    const detail = async (id: string) =>
      (
        await gw.call('GET', `/v1/sessions/${(await sessionOf(a, id)).traceId}`, {
          token: a.loginToken,
          appId: a.appId,
        })
      ).body.data;
    const [w, p] = [await detail('cc-whole'), await detail('cc-split')];
    expect(p.turns).toEqual(w.turns);
    expect(p.turns.map((t: { toolCalls: unknown[] }) => t.toolCalls.length)).toEqual([0, 3, 0]);
    expect(p.events).toEqual(w.events);
    expect(p.events).toHaveLength(1);
  });

  it("Codex's events (JSON exporter) make a session priced by the price table", async () => {
    const codex = (name: string, at: string, attributes: Attrs): Event => ({
      body: `codex.${name}`,
      at,
      attributes: { 'conversation.id': 'codex-conv-1', 'app.version': '0.50.0', 'user.email': EMAIL, ...attributes },
    });
    await emit(new JsonLogExporter({ url: `${base}/v1/logs`, headers: headersOf(a) }), 'codex_cli_rs', [
      codex('conversation_starts', '2026-11-01T10:00:00.000Z', { model: 'gpt-5' }),
      codex('user_prompt', '2026-11-01T10:00:01.000Z', { prompt_length: 10 }),
      codex('api_request', '2026-11-01T10:00:02.000Z', { model: 'gpt-5', duration_ms: 700 }),
      codex('sse_event', '2026-11-01T10:00:03.000Z', {
        model: 'gpt-5',
        'event.kind': 'response.completed',
        input_token_count: 1000,
        cached_token_count: 200,
        output_token_count: 50,
      }),
      codex('tool_result', '2026-11-01T10:00:04.000Z', { tool_name: 'shell', success: 'true', duration_ms: 30 }),
    ]);
    const s = await sessionOf(a, 'codex-conv-1');
    expect(s).toMatchObject({ agentType: 'codex', captureSource: 'telemetry', turnCount: 2, toolCallCount: 1 });
    // OpenAI counts cached tokens inside input tokens: 800 fresh + 200 cached.
    expect(s.tokens).toMatchObject({ input: 800, cacheRead: 200, output: 50 });
    // gpt-5: $1.25 / M input, $0.125 / M cached input, $10 / M output.
    expect(s.costUsd).toBe(0.001525);
  });

  it('a session seen through telemetry, then synced from its transcript, is one session with its numbers', async () => {
    const id = 'cc-two-sources';
    await emit(new ProtoLogExporter({ url: `${base}/v1/logs`, headers: headersOf(a) }), 'claude-code', [
      claude(id, 'api_request', '2026-11-01T09:00:00.000Z', { model: 'claude-sonnet-4-5-20250929', cost_usd: 9 }),
    ]);
    expect((await sessionOf(a, id)).captureSource).toBe('telemetry');
    const transcript = {
      schemaVersion: 1,
      id,
      agent: { type: 'claude-code' },
      env: {},
      startedAt: '2026-11-01T09:00:00.000Z',
      models: [],
      turns: [{ index: 0, role: 'user', toolCalls: [] }],
      events: [],
      totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, costUsd: 0.25 },
      captureTier: 'full',
      warnings: [],
    };
    const synced = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [transcript] },
    });
    expect(synced.status).toBe(200);
    let s = await sessionOf(a, id);
    expect(s).toMatchObject({ captureSource: 'transcript', captureTier: 'full', turnCount: 1, costUsd: 0.25 });
    // Telemetry arriving later does not change what the transcript says.
    await emit(new ProtoLogExporter({ url: `${base}/v1/logs`, headers: headersOf(a) }), 'claude-code', [
      claude(id, 'api_request', '2026-11-01T09:00:05.000Z', { model: 'claude-sonnet-4-5-20250929', cost_usd: 7 }),
    ]);
    s = await sessionOf(a, id);
    expect(s).toMatchObject({ captureSource: 'transcript', turnCount: 1, costUsd: 0.25 });
  });

  it('gzip JSON is read; non-agent or hostile records are counted in partialSuccess, the rest kept', async () => {
    let deep: unknown = { stringValue: 'bottom' };
    for (let i = 0; i < 20; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } };
    const record = (attrs: unknown[], body = 'claude_code.api_request') => ({
      timeUnixNano: '1793530800000000000',
      body: { stringValue: body },
      attributes: [
        { key: 'session.id', value: { stringValue: 'cc-hostile' } },
        { key: 'event.name', value: { stringValue: 'api_request' } },
        { key: 'cost_usd', value: { doubleValue: 0.5 } },
        ...attrs,
      ],
    });
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeLogs: [
            {
              logRecords: [
                record([]),
                record([{ key: 'bomb', value: deep }]),
                record([{ key: 'big', value: { stringValue: 'x'.repeat(70_000) } }]),
                {
                  timeUnixNano: '1793530800000000000',
                  body: { stringValue: 'some other app log line' },
                  attributes: [{ key: 'session.id', value: { stringValue: 'cc-hostile' } }],
                },
              ],
            },
          ],
        },
      ],
    };
    const r = await post(a, '/v1/logs', zlib.gzipSync(JSON.stringify(request)), 'application/json', {
      'content-encoding': 'gzip',
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const answer = JSON.parse(r.body);
    expect(answer.partialSuccess.rejectedLogRecords).toBe(3);
    expect(answer.partialSuccess.errorMessage).toContain('nested deeper than 8 levels');
    expect((await sessionOf(a, 'cc-hostile')).costUsd).toBe(0.5);
  });

  it('answers an undecodable body 400 in the encoding of the request', async () => {
    const proto = await post(
      a,
      '/v1/logs',
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
      'application/x-protobuf',
    );
    expect(proto.statusCode).toBe(400);
    expect(proto.headers['content-type']).toBe('application/x-protobuf');
    expect(decodeStatus(proto.rawPayload)).toMatchObject({
      code: 3,
      message: expect.stringContaining('not an OTLP logs'),
    });

    const json = await post(a, '/v1/logs', Buffer.from('{"resourceLogs": 5}'), 'application/json');
    expect(json.statusCode).toBe(400);
    expect(JSON.parse(json.body).error.code).toBe('invalid_otlp');

    const notGzip = await post(a, '/v1/logs', Buffer.from('plain'), 'application/json', { 'content-encoding': 'gzip' });
    expect(notGzip.statusCode).toBe(400);
    const other = await post(a, '/v1/logs', Buffer.from('x'), 'text/plain');
    expect(other.statusCode).toBe(415);
  });

  it('answers 413 past the body limit, the inflated limit and the record limit', async () => {
    const tooBig = await post(a, '/v1/logs', Buffer.alloc(8 * 1024 * 1024 + 1), 'application/x-protobuf');
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.headers['content-type']).toBe('application/x-protobuf');
    // 40 gzip members of 1 MiB of zeros each: one stream that inflates to 40 MiB (gzipping 40 MiB takes seconds).
    const member = zlib.gzipSync(Buffer.alloc(1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 40 }, () => member));
    const inflated = await post(a, '/v1/logs', bomb, 'application/x-protobuf', { 'content-encoding': 'gzip' });
    expect(inflated.statusCode).toBe(413);
    const many = logsRequest(
      Array.from({ length: 10_001 }, () => ({
        body: 'claude_code.user_prompt',
        at: '2026-11-01T11:00:00.000Z',
        attributes: {},
      })),
    );
    const records = await post(a, '/v1/logs', many, 'application/x-protobuf');
    expect(records.statusCode).toBe(413);
    expect(await sessionOf(a, 'cc-many')).toBeUndefined();
  });

  it('refuses a missing or wrong credential, and another factory sees and changes nothing', async () => {
    const bytes = logsRequest([claude(claudeSession, 'api_request', '2026-11-01T11:30:00.000Z', { cost_usd: 100 })]);
    const none = await gw.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: { 'content-type': 'application/x-protobuf', 'x-outerlayer-app-id': a.appId },
      payload: bytes,
    });
    expect(none.statusCode).toBe(401);
    expect(decodeStatus(none.rawPayload).code).toBe(16);
    const wrong = await post({ ...a, factoryKey: `${a.factoryKey}x` }, '/v1/logs', bytes, 'application/x-protobuf');
    expect(wrong.statusCode).toBe(401);
    // b's key naming a's factory
    const foreign = await post({ ...b, appId: a.appId }, '/v1/logs', bytes, 'application/x-protobuf');
    expect([401, 403, 404]).toContain(foreign.statusCode);
    // b sending the same session id stores it in b's factory only
    expect((await post(b, '/v1/logs', bytes, 'application/x-protobuf')).statusCode).toBe(200);
    expect((await sessionOf(b, claudeSession)).costUsd).toBe(100);
    expect((await sessionOf(a, claudeSession)).costUsd).toBe(1.516912);
    expect(await sessionOf(b, 'codex-conv-1')).toBeUndefined();
  });

  it("answers 429 with Retry-After past the org's otlp-ingest bucket, as google.rpc.Status either way", async () => {
    const fresh = await createTenant(gw, { plan: 'free' });
    // 600 exports a minute on the free plan.
    for (let i = 0; i < 600; i++)
      expect((await post(fresh, '/v1/traces', Buffer.from('{}'), 'application/json')).statusCode).toBe(200);
    const proto = await post(fresh, '/v1/logs', logsRequest([]), 'application/x-protobuf');
    expect(proto.statusCode).toBe(429);
    expect(Number(proto.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(proto.headers['content-type']).toBe('application/x-protobuf');
    expect(decodeStatus(proto.rawPayload)).toMatchObject({ code: 8, message: expect.stringContaining('Rate limit') });
    const json = await post(fresh, '/v1/metrics', Buffer.from('{}'), 'application/json');
    expect(json.statusCode).toBe(429);
    expect(Number(json.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(json.body)).toMatchObject({ code: 8, error: { code: 'rate_limited' } });
    // Another org's bucket is its own.
    expect((await post(b, '/v1/traces', Buffer.from('{}'), 'application/json')).statusCode).toBe(200);
  });

  it('the SDK exporter retries after a 503 with Retry-After, and the batch it sends again is stored once', async () => {
    // A proxy in front of the gateway that loses the first answer (the gateway stored the batch) and answers
    // 503 with Retry-After instead, as a load balancer does: the exporter must send the same batch again.
    const bodies: Buffer[] = [];
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        bodies.push(body);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([k]) => !['host', 'content-length', 'connection', 'transfer-encoding'].includes(k),
          ),
        ) as Record<string, string>;
        const upstream = await fetch(`${base}${req.url}`, { method: 'POST', headers, body: new Uint8Array(body) });
        const answer = Buffer.from(await upstream.arrayBuffer());
        if (bodies.length === 1) {
          res.writeHead(503, { 'content-type': 'application/x-protobuf', 'retry-after': '1' });
          res.end();
          return;
        }
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? '' });
        res.end(answer);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    try {
      const id = 'cc-retried';
      let result: { code: number } | undefined;
      const exporter = new ProtoLogExporter({ url: `http://127.0.0.1:${port}/v1/logs`, headers: headersOf(a) });
      const watched = Object.assign(Object.create(exporter), {
        export: (logs: Parameters<LogRecordExporter['export']>[0], cb: Parameters<LogRecordExporter['export']>[1]) =>
          exporter.export(logs, (r) => {
            result = r;
            cb(r);
          }),
      }) as LogRecordExporter;
      await emit(watched, 'claude-code', [
        claude(id, 'api_request', '2026-11-01T12:00:00.000Z', { model: 'claude-sonnet-4-5-20250929', cost_usd: 0.25 }),
      ]);
      expect(result?.code).toBe(0);
      expect(bodies).toHaveLength(2);
      expect(bodies[1]!.equals(bodies[0]!)).toBe(true);
      const s = await sessionOf(a, id);
      expect(s).toMatchObject({ turnCount: 1, costUsd: 0.25 }); // once, not 0.5
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  /** A meter provider whose exports go to `t`'s /v1/metrics with `temporality`, and what each export answered. */
  function meters(t: Tenant, temporality: AggregationTemporality, instance: string) {
    const results: { code: number }[] = [];
    const exporter = new OTLPMetricExporter({
      url: `${base}/v1/metrics`,
      headers: headersOf(t),
      temporalityPreference: temporality,
    });
    const watched = Object.assign(Object.create(exporter), {
      export: (metrics: Parameters<typeof exporter.export>[0], cb: Parameters<typeof exporter.export>[1]) =>
        exporter.export(metrics, (result) => {
          results.push(result);
          cb(result);
        }),
    }) as typeof exporter;
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.instance.id': instance }),
      readers: [new PeriodicExportingMetricReader({ exporter: watched, exportIntervalMillis: 3_600_000 })],
    });
    return { provider, meter: provider.getMeter('com.anthropic.claude_code'), results };
  }

  it("Claude Code's usage metrics (delta and cumulative, real exporter) become the Overview's figures", async () => {
    const who = { 'user.email': EMAIL, 'session.id': 'cc-metrics' };
    // Delta: lines 10 + 5 added, 3 removed, over two exports; an unkept metric is counted as refused.
    const delta = meters(a, AggregationTemporality.DELTA, 'laptop-1');
    const lines = delta.meter.createCounter('claude_code.lines_of_code.count');
    lines.add(10, { ...who, type: 'added' });
    lines.add(3, { ...who, type: 'removed' });
    delta.meter.createCounter('some.other.metric').add(1);
    await delta.provider.forceFlush();
    lines.add(5, { ...who, type: 'added' });
    await delta.provider.forceFlush();
    await delta.provider.shutdown();
    expect(delta.results.map((r) => r.code)).toEqual([0, 0]);

    // Cumulative: active time 100 s, then 120 s (20 more), an export with nothing new (0 more), then the agent
    // restarts (a new start time) and reports 7 s: 127 s. Edits: 3 accepted, 1 rejected.
    const first = meters(a, AggregationTemporality.CUMULATIVE, 'laptop-2');
    const active = first.meter.createCounter('claude_code.active_time.total');
    const edits = first.meter.createCounter('claude_code.code_edit_tool.decision');
    active.add(100, { ...who, type: 'user' });
    edits.add(2, { ...who, decision: 'accept', tool_name: 'Edit' });
    await first.provider.forceFlush();
    active.add(20, { ...who, type: 'user' });
    edits.add(1, { ...who, decision: 'accept', tool_name: 'Edit' });
    edits.add(1, { ...who, decision: 'reject', tool_name: 'Edit' });
    await first.provider.forceFlush();
    await first.provider.forceFlush();
    await first.provider.shutdown();
    const restarted = meters(a, AggregationTemporality.CUMULATIVE, 'laptop-2');
    restarted.meter.createCounter('claude_code.active_time.total').add(7, { ...who, type: 'user' });
    await restarted.provider.forceFlush();
    await restarted.provider.shutdown();

    const now = Date.now();
    const window = `from=${new Date(now - 86_400_000).toISOString()}&to=${new Date(now + 86_400_000).toISOString()}`;
    const read = async (t: Tenant) => {
      const r = await gw.call('GET', `/v1/metrics/overview?${window}`, { token: t.loginToken, appId: t.appId });
      expect(r.status).toBe(200);
      return r.body.data.telemetry;
    };
    expect(await read(a)).toEqual({
      source: 'telemetry',
      current: {
        linesAdded: 15,
        linesRemoved: 3,
        activeTimeSeconds: 127,
        editDecisions: 4,
        editAcceptanceRate: 0.75,
      },
      prior: null,
    });
    // Another factory received none of it.
    expect((await read(b)).current).toBeNull();
  });

  it('metrics outside the kept ones count as refused; a delta export sent again is counted once', async () => {
    const request = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'claude_code.commit.count',
                  sum: {
                    aggregationTemporality: 1,
                    isMonotonic: true,
                    dataPoints: [
                      {
                        asInt: '2',
                        startTimeUnixNano: '1793530800000000000',
                        timeUnixNano: '1793530860000000000',
                        attributes: [{ key: 'user.email', value: { stringValue: EMAIL } }],
                      },
                    ],
                  },
                },
                { name: 'jvm.memory', gauge: { dataPoints: [{ asDouble: 1, timeUnixNano: '1793530860000000000' }] } },
              ],
            },
          ],
        },
      ],
    };
    for (let i = 0; i < 2; i++) {
      const r = await post(b, '/v1/metrics', Buffer.from(JSON.stringify(request)), 'application/json');
      expect(r.statusCode).toBe(200);
      expect(JSON.parse(r.body).partialSuccess).toMatchObject({ rejectedDataPoints: 1 });
    }
    const stored = await gw.app.attest.db
      .selectFrom('telemetry_metric_days')
      .select(['day', 'actor_id', 'metric', 'value'])
      .where('app_id', '=', b.appId)
      .execute();
    // 1793530860 s is 2026-11-01T11:01:00Z; 2 commits, once.
    expect(stored).toEqual([{ day: '2026-11-01', actor_id: EMAIL, metric: 'commit.count', value: 2 }]);
    const traces = await post(a, '/v1/traces', Buffer.from('{}'), 'application/json');
    expect(traces.statusCode).toBe(200);
    expect(JSON.parse(traces.body)).toEqual({});
  });

  function logsRequest(events: Event[]): Buffer {
    const type = REQUEST_TYPES.logs;
    const value = (v: string | number | boolean) =>
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: v }
            : { doubleValue: v };
    const message = type.fromObject({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeLogs: [
            {
              logRecords: events.map((e) => ({
                timeUnixNano: String(BigInt(Date.parse(e.at)) * 1_000_000n),
                body: { stringValue: e.body },
                attributes: Object.entries({ 'event.timestamp': e.at, ...e.attributes }).map(([key, v]) => ({
                  key,
                  value: value(v),
                })),
              })),
            },
          ],
        },
      ],
    });
    return Buffer.from(type.encode(message).finish());
  }

  function post(t: Pick<Tenant, 'factoryKey' | 'appId'>, url: string, payload: Buffer, type: string, extra = {}) {
    return gw.app.inject({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${t.factoryKey}`,
        'x-outerlayer-app-id': t.appId,
        'content-type': type,
        ...extra,
      },
      payload,
    });
  }
});
