// The gateway's own 503 (issue 41): past its in-flight limit (ATTEST_OTLP_MAX_IN_FLIGHT, here 1) an export
// answers 503 with Retry-After, and the real OpenTelemetry JS SDK exporter sends the batch again after it and
// is stored once. The one export in flight is held by a transaction the test keeps open through the store's own
// writer (on PostgreSQL it holds the session's lock; on SQLite the one write transaction), then lets go.
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { durableWriter } from '../../../src/db/group-commit.js';
import { lockForTransaction } from '../../../src/db/locks.js';
import { exportsInFlight } from '../../../src/areas/otlp/service.js';
import { decodeStatus, REQUEST_TYPES } from '../../../src/areas/otlp/proto.js';

/** Each request's log line (status by route), as the gateway writes them. */
const lines: { route?: string; status?: number }[] = [];
const watchers: (() => void)[] = [];

describe('OTLP in: the gateway at its in-flight limit', () => {
  let gw: TestGateway;
  let a: Tenant;
  let base: string;

  withGatewayAndTenants((s) => ({ gw, a } = s), {
    gateway: {
      env: { ATTEST_OTLP_MAX_IN_FLIGHT: '1' },
      logStream: {
        write(line: string) {
          lines.push(JSON.parse(line));
          for (const w of watchers.splice(0)) w();
        },
      },
    },
  });
  beforeAll(async () => {
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gw.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });

  const headers = () => ({ authorization: `Bearer ${a.factoryKey}`, 'x-outerlayer-app-id': a.appId });

  /** An api_request of Claude Code's, as a protobuf logs request (no e-mail: the actor is the account uuid). */
  function apiRequest(sessionId: string, at: string, cost: number): Buffer {
    const type = REQUEST_TYPES.logs;
    const attrs = {
      'event.name': 'api_request',
      'event.timestamp': at,
      'session.id': sessionId,
      'user.account_uuid': 'acc-busy',
      model: 'claude-sonnet-4-5-20250929',
      cost_usd: cost,
    };
    const message = type.fromObject({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeLogs: [
            {
              logRecords: [
                {
                  timeUnixNano: String(BigInt(Date.parse(at)) * 1_000_000n),
                  body: { stringValue: 'claude_code.api_request' },
                  attributes: Object.entries(attrs).map(([key, v]) => ({
                    key,
                    value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v },
                  })),
                },
              ],
            },
          ],
        },
      ],
    });
    return Buffer.from(type.encode(message).finish());
  }

  const post = (body: Buffer, type = 'application/x-protobuf') =>
    gw.app.inject({ method: 'POST', url: '/v1/logs', headers: { ...headers(), 'content-type': type }, payload: body });

  async function session(sessionId: string) {
    const list = await gw.call('GET', '/v1/sessions?repoScope=all&limit=100', { token: a.loginToken, appId: a.appId });
    expect(list.status).toBe(200);
    return list.body.data.sessions.filter((s: { sessionId: string }) => s.sessionId === sessionId);
  }

  /** Resolves once a request's log line matches. */
  const logged = (match: (l: (typeof lines)[number]) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (lines.some(match) ? resolve() : watchers.push(check));
      check();
    });

  it('answers 503 with Retry-After past the limit; the SDK exporter retries after it and is stored once', async () => {
    // One export first: the key is resolved and kept in memory, so later requests need no read of the store.
    expect((await post(apiRequest('cc-warm', '2026-11-02T09:00:00.000Z', 0.01))).statusCode).toBe(200);

    // Hold the store: a transaction that waits for the test, taken through the gateway's own writer and lock.
    const db = gw.app.attest.db;
    const dialect = gw.app.attest.dialect;
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    const writer = durableWriter(db, dialect);
    const held = writer
      .commit(async (trx) => {
        await lockForTransaction(trx, dialect, `telemetry:${a.appId}:${JSON.stringify(['claude-code', 'cc-held'])}`);
        entered();
        await new Promise<void>((r) => {
          release = r;
        });
      })
      .finally(() => writer.leave());
    await inside;

    // One export in flight: it waits for the held transaction.
    const first = post(apiRequest('cc-held', '2026-11-02T09:01:00.000Z', 0.1));
    while (exportsInFlight(gw.app.attest) < 1) await new Promise((r) => setImmediate(r));

    // Another, raw: 503 with Retry-After, a google.rpc.Status UNAVAILABLE (14) in protobuf; nothing stored.
    const raw = await post(apiRequest('cc-refused', '2026-11-02T09:01:30.000Z', 0.2));
    expect(raw.statusCode).toBe(503);
    expect(raw.headers['retry-after']).toBe('1');
    expect(decodeStatus(raw.rawPayload)).toMatchObject({ code: 14 });

    // The real exporter: its first attempt is refused the same way; once the store is let go, it sends the
    // same batch again after Retry-After and succeeds.
    const before503 = lines.filter((l) => l.status === 503).length;
    const refused = logged((l) => l.status === 503 && lines.filter((m) => m.status === 503).length > before503);
    let result: { code: number } | undefined;
    const exporter = new OTLPLogExporter({ url: `${base}/v1/logs`, headers: headers() });
    const exported = new Promise<void>((resolve) => {
      const provider = new LoggerProvider({
        resource: resourceFromAttributes({ 'service.name': 'claude-code' }),
        processors: [
          new SimpleLogRecordProcessor({
            export: (logs, cb) =>
              exporter.export(logs, (r) => {
                result = r;
                cb(r);
                resolve();
              }),
            shutdown: () => exporter.shutdown(),
          }),
        ],
      });
      provider.getLogger('claude-code').emit({
        body: 'claude_code.api_request',
        timestamp: new Date('2026-11-02T09:02:00.000Z'),
        attributes: {
          'event.name': 'api_request',
          'event.timestamp': '2026-11-02T09:02:00.000Z',
          'session.id': 'cc-retried',
          'user.account_uuid': 'acc-busy',
          model: 'claude-sonnet-4-5-20250929',
          cost_usd: 0.5,
        },
      });
    });
    await refused;
    release();
    await held;
    expect((await first).statusCode).toBe(200);
    await exported;
    expect(result?.code).toBe(0);

    // In order: the first export, the raw 503, the exporter's refused attempt, the held export, the retry.
    const logs = lines.filter((l) => l.route === '/v1/logs');
    expect(logs.map((l) => l.status)).toEqual([200, 503, 503, 200, 200]);
    // Each stored once: the retried batch is one turn of $0.50, the held one one turn of $0.10.
    expect(await session('cc-retried')).toMatchObject([{ turnCount: 1, costUsd: 0.5, captureSource: 'telemetry' }]);
    expect(await session('cc-held')).toMatchObject([{ turnCount: 1, costUsd: 0.1 }]);
    expect(await session('cc-refused')).toEqual([]);
    expect(exportsInFlight(gw.app.attest)).toBe(0);
  });
});
