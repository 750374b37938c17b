// Responses are written in the event loop's check phase, together with the others of their turn
// (src/server/send-coalescing.ts). Held writes must still reach the right client, whole and in order.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendCoalescer } from '../../src/server/send-coalescing.js';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

describe('SendCoalescer', () => {
  it('writes nothing in the turn that held it, then everything in the order held', async () => {
    const errors: unknown[] = [];
    const sends = new SendCoalescer((err) => errors.push(err));
    const written: string[] = [];
    sends.hold((err, payload) => written.push(`${String(err)}:${String(payload)}`), 'first');
    sends.hold((err, payload) => written.push(`${String(err)}:${String(payload)}`), 'second');
    await Promise.resolve(); // microtasks of this turn run, the check phase has not come yet
    expect(written).toEqual([]);
    expect(sends.pending).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['null:first', 'null:second']);
    expect(sends.pending).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a write that throws is reported and does not strand the ones after it', async () => {
    const errors: unknown[] = [];
    const sends = new SendCoalescer((err) => errors.push(err));
    const written: unknown[] = [];
    sends.hold(() => {
      throw new Error('socket gone');
    }, 'a');
    sends.hold((_err, payload) => written.push(payload), 'b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['b']);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('socket gone');
  });

  it('a response held while others are written goes out in the next check phase', async () => {
    const sends = new SendCoalescer(() => undefined);
    const written: unknown[] = [];
    sends.hold((_err, payload) => {
      written.push(payload);
      sends.hold((_e, later) => written.push(later), 'held during the release');
    }, 'first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['first']);
    expect(sends.pending).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['first', 'held during the release']);
  });
});

describe('held responses over real connections', () => {
  let gw: TestGateway;
  let t: Tenant;
  let port: number;
  beforeAll(async () => {
    gw = await startGateway();
    t = await createTenant(gw);
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gw.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await gw.close();
  });

  it('three requests pipelined in one write answer in order, each with its own id, status and body', async () => {
    const request = (path: string, id: string, auth: boolean) =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${id}\r\n` +
      (auth ? `Authorization: Bearer ${t.factoryKey}\r\nX-Outerlayer-App-Id: ${t.appId}\r\n` : '') +
      '\r\n';
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 3 && text.endsWith('}')) {
          socket.end();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.write(
        request('/health', 'pipe-a', false) +
          request('/v1/api-keys', 'pipe-b', true) +
          request('/v1/api-keys', 'pipe-c', false),
      );
    });
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(3);
    expect(responses.map((r) => r.split(' ')[1])).toEqual(['200', '200', '401']);
    expect(responses.map((r) => /x-request-id: (\S+)/i.exec(r)?.[1])).toEqual(['pipe-a', 'pipe-b', 'pipe-c']);
    expect(responses[0]).toContain('"status":"ok"');
    const prefixes = [...responses[1]!.matchAll(/"key_prefix":"([^"]+)"/g)].map((m) => m[1]!);
    expect(prefixes.some((p) => p.length > 'sk_outerlayer_'.length && t.factoryKey.startsWith(p))).toBe(true);
    expect(responses[2]).toContain('"code":"unauthorized"');
  });

  it('sixty concurrent requests on their own connections each get their own answer', async () => {
    const base = `http://127.0.0.1:${port}`;
    const results = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const authed = i % 2 === 0;
        const res = await fetch(`${base}/v1/api-keys`, {
          headers: {
            'x-request-id': `many-${i}`,
            ...(authed ? { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId } : {}),
          },
        });
        const body = (await res.json()) as { data?: { key_prefix: string }[]; error?: { code: string } };
        return { i, authed, status: res.status, id: res.headers.get('x-request-id'), body };
      }),
    );
    for (const r of results) {
      expect(r.id).toBe(`many-${r.i}`);
      if (r.authed) {
        expect(r.status).toBe(200);
        expect(
          r.body.data?.some(
            (k) => k.key_prefix.length > 'sk_outerlayer_'.length && t.factoryKey.startsWith(k.key_prefix),
          ),
        ).toBe(true);
      } else {
        expect(r.status).toBe(401);
        expect(r.body.error?.code).toBe('unauthorized');
      }
    }
  });
});
