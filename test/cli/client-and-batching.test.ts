// The API client against a real gateway (headers, error mapping, transport failure) and the sync batching
// rules: packing within the limits, and a session too large for one request sent as chunk parts that the
// gateway merges back into the whole session.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript } from '../../src/capture/index.js';
import { AttestClient, ApiClientError } from '../../src/client/index.js';
import { chunkSession, packBatches } from '../../src/cli/sync.js';
import { readRaw, schemaErrors } from '../capture/schema.js';
import { listeningGateway, type ListeningGateway } from './cli-helpers.js';

let g: ListeningGateway;
beforeAll(async () => {
  g = await listeningGateway();
});
afterAll(async () => {
  await g.close();
});

describe('AttestClient', () => {
  it('maps error envelopes to ApiClientError with status, code, message and extras', async () => {
    const bad = new AttestClient({ url: g.url, token: `sk_outerlayer_${'c'.repeat(42)}`, appId: g.tenant.appId });
    const unauthorized = await bad.listWorkItems().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(ApiClientError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized', method: 'GET', path: '/v1/work-items' });

    const client = new AttestClient({ url: g.url, token: g.tenant.factoryKey, appId: g.tenant.appId });
    const missing = await client.getWorkItem('999999').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'work_item_not_found' });

    const minted = await g.gw.call('POST', '/v1/api-keys', {
      token: g.tenant.loginToken,
      appId: g.tenant.appId,
      body: { name: 'hosts-only', permissions: ['hosts.read'] },
    });
    const narrow = new AttestClient({ url: g.url, token: minted.body.data.plaintext_key, appId: g.tenant.appId });
    const forbidden = await narrow
      .syncSessions({ schemaVersion: 1, sessions: [parseClaudeCodeTranscript(readRaw('s09-small-eabfac43.jsonl'))] })
      .catch((e: unknown) => e);
    expect(forbidden).toMatchObject({
      status: 403,
      code: 'forbidden',
      extra: { required_permission: 'sessions.write' },
    });

    const old = new AttestClient({
      url: g.url,
      token: g.tenant.factoryKey,
      appId: g.tenant.appId,
      runnerVersion: 'not-a-version',
    });
    expect(await old.listWorkItems().catch((e: unknown) => e)).toMatchObject({
      status: 400,
      code: 'invalid_runner_version',
    });

    // Nothing listens on a port just closed: refused, and not worth retrying.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = await new AttestClient({ url: `http://127.0.0.1:${port}`, token: 'x' })
      .listWorkItems()
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ status: 0, code: 'connection_refused', retryable: false });
    // A port fetch will not use: no answer, retried.
    const blocked = await new AttestClient({ url: 'http://127.0.0.1:9', token: 'x' })
      .listWorkItems()
      .catch((e: unknown) => e);
    expect(blocked).toMatchObject({ status: 0, code: 'network_error', retryable: true });
  });
});

describe('sync batching', () => {
  it('packs at most 50 sessions and at most the byte limit a request', () => {
    const items = Array.from({ length: 120 }, (_, i) => ({ i, bytes: 1000 }));
    expect(packBatches(items).map((b) => b.length)).toEqual([50, 50, 20]);
    expect(packBatches(items, 50, 10_500).map((b) => b.length)).toEqual(Array(12).fill(10));
    // One item larger than the limit still goes alone (the sender chunks it or reports it).
    expect(packBatches([{ bytes: 5 }, { bytes: 50_000 }, { bytes: 5 }], 50, 10_000).map((b) => b.length)).toEqual([
      1, 1, 1,
    ]);
  });

  it('a session larger than a request goes in chunk parts; the gateway merges them into the whole', async () => {
    const whole = parseClaudeCodeTranscript(readRaw('s07-large-b2e4caca.jsonl'), { tier: 'full' });
    const wholeBytes = Buffer.byteLength(JSON.stringify(whole));
    const maxBytes = Math.ceil(wholeBytes / 4);
    const parts = chunkSession(whole, maxBytes);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const [i, part] of parts.entries()) {
      expect(schemaErrors(part)).toEqual([]);
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThanOrEqual(maxBytes);
      expect(part.chunk).toMatchObject({ part: i + 1, of: parts.length, counts: { turns: whole.turns.length } });
      expect(part.id).toBe(whole.id);
      expect(part.events.length).toBe(i === 0 ? whole.events.length : 0);
    }
    expect(parts.flatMap((p) => p.turns.map((t) => t.index))).toEqual(whole.turns.map((t) => t.index));

    const client = new AttestClient({ url: g.url, token: g.tenant.factoryKey, appId: g.tenant.appId });
    // Parts may arrive in any order.
    for (const part of [...parts].reverse()) {
      const res = await client.syncSessions({ schemaVersion: 1, sessions: [part] });
      expect(res.accepted).toEqual([whole.id]);
    }
    const list = await client.listSessions({ repoScope: 'all', includeSubagents: '1' });
    const row = (list.data as { sessions: { sessionId: string; traceId: string }[] }).sessions.find(
      (s) => s.sessionId === whole.id,
    );
    const detail = (await client.getSession(row!.traceId)) as {
      turnCount: number;
      chunk: { of: number; partsReceived: number[] };
      events: unknown[];
    };
    expect(detail.turnCount).toBe(whole.turns.length);
    expect(detail.events).toHaveLength(whole.events.length);
    expect(detail.chunk).toEqual({ of: parts.length, partsReceived: parts.map((_, i) => i + 1) });
  });
});
