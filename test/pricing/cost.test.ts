// Session cost against figures computed by hand from the per-million prices @pydantic/genai-prices 0.1.8
// ships (read from its data with calcPrice(...).model_price):
//   claude-sonnet-4-6: input 3, cache_write 3.75, cache_write_1h 6, cache_read 0.3, output 15 ($/Mtok)
//   claude-opus-4-8:   input 5, cache_write 6.25, cache_write_1h 10, cache_read 0.5, output 25
// (Anthropic's published rates: a five-minute cache write is 1.25× input, a one-hour write 2× input.)
//   gpt-5 (gpt-5-codex matches it): input 1.25, cache_read 0.125, output 10
// $/Mtok × tokens = micro-dollars, so each figure below is plain integer arithmetic.
import { describe, expect, it } from 'vitest';
import { calcPrice } from '@pydantic/genai-prices';
import { priceSession, priceTurnNanos, priceTurnNanosExact, tokensByKind } from '../../src/pricing/cost.js';

const TS = '2026-07-01T14:03:19.000Z';

describe('the prices this test assumes', () => {
  it('are the ones the package ships', () => {
    const price = (model: string) => calcPrice({ input_tokens: 1, output_tokens: 1 }, model)!.model_price;
    expect(price('claude-sonnet-4-6')).toMatchObject({
      input_mtok: 3,
      cache_write_mtok: 3.75,
      cache_write_1h_mtok: 6,
      cache_read_mtok: 0.3,
      output_mtok: 15,
    });
    expect(price('claude-opus-4-8')).toMatchObject({
      input_mtok: 5,
      cache_write_mtok: 6.25,
      cache_write_1h_mtok: 10,
      cache_read_mtok: 0.5,
      output_mtok: 25,
    });
    expect(price('gpt-5-codex')).toMatchObject({ input_mtok: 1.25, cache_read_mtok: 0.125, output_mtok: 10 });
  });
});

describe('priceSession', () => {
  it('prices a Claude turn with cache read and cache creation on top of input', () => {
    // 9 × 3 + 18230 × 0.3 + 2048 × 3.75 + 412 × 15 = 27 + 5469 + 7680 + 6180 = 19356 µ$
    const cost = priceSession([
      { role: 'user' },
      {
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        ts: TS,
        usage: { in: 9, out: 412, cacheRead: 18230, cacheCreate: 2048 },
        costUsd: 0.5,
      },
    ]);
    expect(cost.costMicros).toBe(19356);
    expect(cost.costNanos).toBe(19_356_000);
    expect(cost.status).toBe('complete');
    expect(cost.unpricedModels).toEqual([]);
    expect(cost.tokens).toEqual({ input: 9, output: 412, cacheRead: 18230, cacheWrite: 2048, cacheWrite1h: 0 });
    expect(cost.byModel).toEqual([
      { model: 'claude-sonnet-4-6', tokens: cost.tokens, turns: 1, costNanos: 19_356_000, unpricedTurns: 0 },
    ]);
  });

  it('prices the canonical full.json turn (claude-opus-4-8) from tokens, not from the client figure', () => {
    // 9 × 5 + 18230 × 0.5 + 2048 × 6.25 + 412 × 25 = 45 + 9115 + 12800 + 10300 = 32260 µ$ (client said 0.0389)
    const cost = priceSession([
      {
        role: 'assistant',
        model: 'claude-opus-4-8',
        ts: TS,
        usage: { in: 9, out: 412, cacheRead: 18230, cacheCreate: 2048 },
        costUsd: 0.0389,
      },
    ]);
    expect(cost.costMicros).toBe(32260);
  });

  it('prices an OpenAI/Codex turn whose cached tokens are a subset of input', () => {
    // 10000 input of which 8000 cached: 2000 × 1.25 + 8000 × 0.125 + 500 × 10 = 2500 + 1000 + 5000 = 8500 µ$
    const cost = priceSession([
      {
        role: 'assistant',
        model: 'gpt-5-codex',
        ts: TS,
        usage: { in: 10000, out: 500, cacheRead: 8000, cacheCreate: 0 },
      },
    ]);
    expect(cost.costMicros).toBe(8500);
    expect(cost.tokens).toEqual({ input: 2000, output: 500, cacheRead: 8000, cacheWrite: 0, cacheWrite1h: 0 });
    expect(cost.status).toBe('complete');
  });

  it('treats cache reads larger than input as reported beside it, whatever the vendor', () => {
    expect(tokensByKind('gpt-5', { in: 100, out: 0, cacheRead: 900, cacheCreate: 0 })).toEqual({
      input: 100,
      output: 0,
      cacheRead: 900,
      cacheWrite: 0,
      cacheWrite1h: 0,
    });
  });

  it('leaves an unknown model unpriced, and keeps a client cost only there', () => {
    const unknown = priceSession([
      {
        role: 'assistant',
        model: 'claude-fable-7',
        ts: TS,
        usage: { in: 100, out: 100, cacheRead: 0, cacheCreate: 0 },
      },
    ]);
    expect(unknown.status).toBe('unpriced');
    expect(unknown.unpricedModels).toEqual(['claude-fable-7']);
    expect(unknown.costMicros).toBe(0);
    expect(
      priceTurnNanos('claude-fable-7', { input: 100, output: 100, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 }),
    ).toBeNull();

    const clientPriced = priceSession([
      {
        role: 'assistant',
        model: 'claude-fable-7',
        ts: TS,
        usage: { in: 100, out: 100, cacheRead: 0, cacheCreate: 0 },
        costUsd: 0.0123,
      },
    ]);
    expect(clientPriced.costMicros).toBe(12300);
    expect(clientPriced.status).toBe('complete');
    expect(clientPriced.unpricedModels).toEqual([]);
  });

  it('mixes priced and unpriced turns into a partial cost', () => {
    // sonnet: 1000 × 3 + 200 × 15 = 6000 µ$; opus: 10 × 5 + 5000 × 0.5 + 100 × 25 = 50 + 2500 + 2500 = 5050 µ$
    const cost = priceSession([
      { role: 'user' },
      {
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        ts: TS,
        usage: { in: 1000, out: 200, cacheRead: 0, cacheCreate: 0 },
      },
      {
        role: 'assistant',
        model: 'mystery-model-9',
        ts: TS,
        usage: { in: 1000, out: 200, cacheRead: 0, cacheCreate: 0 },
      },
      {
        role: 'assistant',
        model: 'claude-opus-4-8',
        ts: TS,
        usage: { in: 10, out: 100, cacheRead: 5000, cacheCreate: 0 },
      },
      {
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        ts: TS,
        usage: { in: 1000, out: 200, cacheRead: 0, cacheCreate: 0 },
      },
    ]);
    expect(cost.costMicros).toBe(6000 * 2 + 5050);
    expect(cost.status).toBe('partial');
    expect(cost.unpricedModels).toEqual(['mystery-model-9']);
    expect(cost.byModel.map((m) => [m.model, m.turns, m.costNanos / 1000, m.unpricedTurns])).toEqual([
      ['claude-opus-4-8', 1, 5050, 0],
      ['claude-sonnet-4-6', 2, 12000, 0],
      ['mystery-model-9', 1, 0, 1],
    ]);
  });

  it('sums in integers: a thousand sub-micro-dollar turns add up exactly', () => {
    // one output token of gpt-5 = 10 µ$; one cached input token = 0.125 µ$ = 125 n$: 1000 turns × 125 n$ = 125 µ$
    const turns = Array.from({ length: 1000 }, () => ({
      role: 'assistant',
      model: 'gpt-5',
      ts: TS,
      usage: { in: 1, out: 0, cacheRead: 1, cacheCreate: 0 },
    }));
    expect(priceSession(turns).costMicros).toBe(125);
  });

  it('prices a session without turns from its totals when it names one model', () => {
    const cost = priceSession([], {
      models: ['claude-sonnet-4-6'],
      startedAt: TS,
      totals: { inputTokens: 9, outputTokens: 412, cacheReadTokens: 18230, cacheCreationTokens: 2048 },
    });
    expect(cost.costMicros).toBe(19356);
    expect(cost.status).toBe('complete');
    const empty = priceSession([], {
      models: [],
      totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    });
    expect(empty).toMatchObject({ costMicros: 0, status: 'complete', unpricedModels: [] });
  });
});

describe('cache writes by TTL (usage.cacheCreate1h)', () => {
  // claude-sonnet-4-6: input 3, five-minute write 3.75 (1.25 × 3), one-hour write 6 (2 × 3), read 0.3, output 15.
  const turn = (cacheCreate: number, cacheCreate1h?: number) => ({
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    ts: TS,
    usage: {
      in: 10,
      out: 200,
      cacheRead: 30_000,
      cacheCreate,
      ...(cacheCreate1h !== undefined ? { cacheCreate1h } : {}),
    },
  });
  // The part every turn below shares: 10 × 3 + 30000 × 0.3 + 200 × 15 = 30 + 9000 + 3000 = 12030 µ$.
  const base = 12_030;

  it('a five-minute-only turn: 4000 × 3.75 = 15000 µ$ of writes', () => {
    expect(priceSession([turn(4000)]).costMicros).toBe(base + 15_000);
    expect(priceSession([turn(4000, 0)]).costMicros).toBe(base + 15_000);
    expect(priceSession([turn(4000)]).tokens).toMatchObject({ cacheWrite: 4000, cacheWrite1h: 0 });
  });

  it('a one-hour-only turn: 4000 × 6 = 24000 µ$ of writes', () => {
    const cost = priceSession([turn(4000, 4000)]);
    expect(cost.costMicros).toBe(base + 24_000);
    expect(cost.tokens).toMatchObject({ cacheWrite: 4000, cacheWrite1h: 4000 });
  });

  it('a mixed turn: 1500 × 6 + (4000 − 1500) × 3.75 = 9000 + 9375 = 18375 µ$ of writes', () => {
    const cost = priceSession([turn(4000, 1500)]);
    expect(cost.costMicros).toBe(base + 18_375);
    expect(cost.byModel[0]!.tokens).toMatchObject({ cacheWrite: 4000, cacheWrite1h: 1500 });
  });

  it('agrees with calcPrice given the same split', () => {
    const t = tokensByKind('claude-opus-4-8', {
      in: 7,
      out: 900,
      cacheRead: 120_000,
      cacheCreate: 9000,
      cacheCreate1h: 5000,
    });
    // 7 × 5 + 120000 × 0.5 + 4000 × 6.25 + 5000 × 10 + 900 × 25 = 35 + 60000 + 25000 + 50000 + 22500 = 157535 µ$
    expect(priceTurnNanos('claude-opus-4-8', t, new Date(TS))).toBe(157_535_000);
    expect(priceTurnNanosExact('claude-opus-4-8', t, new Date(TS))).toBe(157_535_000);
  });

  it('clamps a one-hour part larger than the write to the write', () => {
    expect(
      tokensByKind('claude-sonnet-4-6', { in: 0, out: 0, cacheRead: 0, cacheCreate: 100, cacheCreate1h: 500 })
        .cacheWrite1h,
    ).toBe(100);
  });
});

describe('priceTurnNanos', () => {
  it('agrees with calcPrice turn by turn, flat and tiered models alike', () => {
    let seed = 42;
    const rnd = (max: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % max;
    };
    const models = [
      'claude-sonnet-4-6',
      'claude-opus-4-8',
      'claude-haiku-4-5-20251001',
      'claude-sonnet-4-5-20250929',
      'gpt-5',
      'gpt-4o',
      'o3',
    ];
    for (const model of models) {
      for (let i = 0; i < 40; i += 1) {
        const cacheWrite = model.startsWith('claude') ? rnd(50_000) : 0;
        // Half the turns write part of their cache with the one-hour TTL.
        const tokens = {
          input: rnd(300_000),
          output: rnd(20_000),
          cacheRead: rnd(400_000),
          cacheWrite,
          cacheWrite1h: i % 2 ? rnd(cacheWrite + 1) : 0,
        };
        for (const at of [TS, '2026-01-15T08:00:00.000Z']) {
          expect(priceTurnNanos(model, tokens, new Date(at)), `${model} ${at} ${JSON.stringify(tokens)}`).toBe(
            priceTurnNanosExact(model, tokens, new Date(at)),
          );
        }
      }
    }
  });
});

describe('prices by date', () => {
  it('uses the price in force at the turn (claude-sonnet-4-6 was tiered above 200k before 2026-03-13)', () => {
    // 250000 uncached input + 1000 output. Before: the whole request at the >200k tier, 250000 × 6 + 1000 × 22.5
    // = 1522500 µ$. After: flat, 250000 × 3 + 1000 × 15 = 765000 µ$.
    const tokens = { input: 250_000, output: 1000, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };
    expect(priceTurnNanos('claude-sonnet-4-6', tokens, new Date('2026-02-01T00:00:00Z'))).toBe(1_522_500_000);
    expect(priceTurnNanos('claude-sonnet-4-6', tokens, new Date('2026-07-01T00:00:00Z'))).toBe(765_000_000);
  });

  it('prices each turn of a session at its own date and model, going back and forth between them', () => {
    const turn = (model: string, ts: string, usage: { in: number; out: number }) => ({
      role: 'assistant',
      model,
      ts,
      usage: { ...usage, cacheRead: 0, cacheCreate: 0 },
    });
    const sonnet = { in: 250_000, out: 1000 };
    const cost = priceSession([
      turn('claude-sonnet-4-6', '2026-02-01T09:00:00.000Z', sonnet), // 1522500 µ$ (above)
      turn('claude-opus-4-8', '2026-02-01T09:01:00.000Z', { in: 1000, out: 100 }), // 1000 × 5 + 100 × 25 = 7500 µ$
      turn('claude-sonnet-4-6', '2026-07-01T09:00:00.000Z', sonnet), // 765000 µ$
      turn('claude-sonnet-4-6', '2026-02-01T23:59:59.000Z', sonnet), // 1522500 µ$ again: the earlier day's price
    ]);
    expect(cost.status).toBe('complete');
    expect(cost.costMicros).toBe(1_522_500 + 7_500 + 765_000 + 1_522_500);
    expect(cost.byModel.map((m) => [m.model, m.costNanos / 1000])).toEqual([
      ['claude-opus-4-8', 7_500],
      ['claude-sonnet-4-6', 1_522_500 + 765_000 + 1_522_500],
    ]);
  });
});
