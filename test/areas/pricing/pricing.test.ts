import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { findProvider } from '@pydantic/genai-prices';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

function packageVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

describe('GET /v1/pricing', () => {
  let gw: TestGateway;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let all: any;
  beforeAll(async () => {
    gw = await startGateway();
    const res = await gw.call('GET', '/v1/pricing');
    expect(res.status).toBe(200);
    all = res.body.data;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('states the data source and version, currency and unit, and the instant prices were resolved for', () => {
    expect(all.source).toBe('@pydantic/genai-prices');
    expect(all.version).toBe(packageVersion());
    expect(all.currency).toBe('USD');
    expect(all.unit).toBe('per_million_tokens');
    expect(all.at).toBe(new Date(gw.clock.now()).toISOString());
  });

  it('has Claude Sonnet 4 with the numbers the package has', () => {
    const anthropic = findProvider({ providerId: 'anthropic' })!;
    const model = anthropic.models.find((m) => m.name === 'Claude Sonnet 4')!;
    expect(Array.isArray(model.prices)).toBe(false);
    const p = model.prices as Record<string, number>;
    const entry = all.models.find(
      (m: { provider: string; model: string }) => m.provider === 'anthropic' && m.model === model.id,
    );
    expect(entry).toEqual({
      provider: 'anthropic',
      providerName: anthropic.name,
      model: model.id,
      name: 'Claude Sonnet 4',
      input: { perMTok: p.input_mtok, tiers: [] },
      output: { perMTok: p.output_mtok, tiers: [] },
      cacheRead: { perMTok: p.cache_read_mtok, tiers: [] },
      cacheWrite: { perMTok: p.cache_write_mtok, tiers: [] },
      cacheWrite1h: { perMTok: p.cache_write_1h_mtok, tiers: [] },
      conditional: false,
      deprecated: false,
    });
    // The package's published Sonnet 4 rates (a one-hour cache write is 2 × input), so a wrong field mapping cannot
    // pass unnoticed.
    expect([
      entry.input.perMTok,
      entry.output.perMTok,
      entry.cacheRead.perMTok,
      entry.cacheWrite.perMTok,
      entry.cacheWrite1h.perMTok,
    ]).toEqual([3, 15, 0.3, 3.75, 6]);
  });

  it('lists every model of every provider the package knows', () => {
    const anthropic = findProvider({ providerId: 'anthropic' })!;
    const openai = findProvider({ providerId: 'openai' })!;
    const ids = (provider: string) =>
      all.models.filter((m: { provider: string }) => m.provider === provider).map((m: { model: string }) => m.model);
    expect(ids('anthropic')).toEqual(anthropic.models.map((m) => m.id));
    expect(ids('openai')).toEqual(openai.models.map((m) => m.id));
  });

  it('reports long-context tiers and a null for a price the model does not have', () => {
    const tiered = all.models.find(
      (m: { conditional: boolean; input: { tiers: unknown[] } | null }) =>
        !m.conditional && m.input && m.input.tiers.length > 0,
    );
    const provider = findProvider({ providerId: tiered.provider })!;
    const source = provider.models.find((m) => m.id === tiered.model)!;
    const input = (source.prices as Record<string, unknown>).input_mtok as {
      base: number;
      tiers: Array<{ start: number; price: number }>;
    };
    expect(input.tiers.length).toBeGreaterThan(0);
    expect(tiered.input).toEqual({
      perMTok: input.base,
      tiers: input.tiers.map((t) => ({ startTokens: t.start, perMTok: t.price })),
    });
    const noCacheWrite = all.models.find(
      (m: { input: unknown; cacheWrite: unknown }) => m.input !== null && m.cacheWrite === null,
    );
    expect(noCacheWrite).toBeTruthy();
  });

  it('resolves dated price changes at the gateway clock', async () => {
    // A model whose prices change on a start date: before and after that date the answer differs.
    const provider = findProvider({ providerId: 'google' })!;
    const dated = provider.models.find(
      (m) => Array.isArray(m.prices) && m.prices.some((c) => c.constraint?.type === 'start_date'),
    )!;
    expect(dated).toBeTruthy();
    const prices = dated.prices as Array<{
      constraint?: { type: string; start_date?: string };
      prices: Record<string, number | { base: number }>;
    }>;
    const change = prices.find((c) => c.constraint?.type === 'start_date')!;
    const starts = Date.parse(change.constraint!.start_date!);
    const g = await startGateway();
    try {
      const price = (v: number | { base: number } | undefined) => (typeof v === 'number' ? v : (v?.base ?? null));
      g.clock.set(starts - 86_400_000);
      const before = (await g.call('GET', '/v1/pricing?provider=google')).body.data.models.find(
        (m: { model: string }) => m.model === dated.id,
      );
      expect(before.conditional).toBe(true);
      expect(before.input?.perMTok ?? null).toBe(price(prices[0]!.prices.input_mtok));
      g.clock.set(starts + 86_400_000);
      const after = (await g.call('GET', '/v1/pricing?provider=google')).body.data.models.find(
        (m: { model: string }) => m.model === dated.id,
      );
      expect(after.input?.perMTok ?? null).toBe(price(change.prices.input_mtok));
    } finally {
      await g.close();
    }
  });

  it('filters by provider', async () => {
    const res = await gw.call('GET', '/v1/pricing?provider=anthropic');
    expect(res.status).toBe(200);
    expect(res.body.data.models.length).toBe(findProvider({ providerId: 'anthropic' })!.models.length);
    expect(new Set(res.body.data.models.map((m: { provider: string }) => m.provider))).toEqual(new Set(['anthropic']));
  });

  it('answers 400 invalid_query_params for an unknown provider or an unknown parameter', async () => {
    const unknown = await gw.call('GET', '/v1/pricing?provider=nosuchprovider');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_query_params');
    expect(unknown.body.error.details[0].path).toBe('provider');
    const extra = await gw.call('GET', '/v1/pricing?model=x');
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe('invalid_query_params');
  });

  it('needs no credential, ignores a bad one, and may be cached', async () => {
    const res = await gw.call('GET', '/v1/pricing?provider=anthropic', { token: 'sk_outerlayer_bad' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
  });
});
