// Issue 15 §1, measured: the cost of the 30 raw Claude Code fixture transcripts through the real capture and
// the real pricer, before (every cache write at the five-minute rate, as when the document carried no TTL
// split) and after (the one-hour part at the one-hour rate), against a reference computed here straight from
// the raw JSONL usage lines with Anthropic's published per-million prices, independently of src/.
import { describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript } from '../../src/capture/index.js';
import { priceSession, type PricedTurnInput } from '../../src/pricing/cost.js';
import { rawFixtureNames, readRaw } from '../capture/schema.js';

/**
 * USD per million tokens: input, five-minute cache write (1.25 × input), one-hour cache write (2 × input), cache read,
 * output.
 */
const PUBLISHED: Record<string, { in: number; w5m: number; w1h: number; read: number; out: number }> = {
  'claude-opus-4-8': { in: 5, w5m: 6.25, w1h: 10, read: 0.5, out: 25 },
  'claude-opus-4-7': { in: 5, w5m: 6.25, w1h: 10, read: 0.5, out: 25 },
  'claude-sonnet-4-6': { in: 3, w5m: 3.75, w1h: 6, read: 0.3, out: 15 },
  'claude-sonnet-5': { in: 2, w5m: 2.5, w1h: 4, read: 0.2, out: 10 },
  'claude-haiku-4-5-20251001': { in: 1, w5m: 1.25, w1h: 2, read: 0.1, out: 5 },
};

interface RawUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

/**
 * The reference: one entry per API message (lines of one message repeat its usage while the output grows, so
 * each counter takes its largest value), priced by the table above in micro-dollars ($/Mtok × tokens = µ$).
 * Messages of a model the table does not know are counted apart (the gateway leaves them unpriced too).
 */
function reference(text: string): { micros: number; unknownModels: Set<string> } {
  const messages = new Map<string, { model: string; v: number[] }>();
  text.split('\n').forEach((line, i) => {
    let o: {
      type?: string;
      uuid?: string;
      isApiErrorMessage?: boolean;
      message?: { id?: string; model?: string; usage?: RawUsage };
    };
    try {
      o = JSON.parse(line) as typeof o;
    } catch {
      return;
    }
    if (
      o.type !== 'assistant' ||
      o.isApiErrorMessage ||
      !o.message?.usage ||
      !o.message.model ||
      o.message.model.startsWith('<')
    )
      return;
    const u = o.message.usage;
    const oneHour = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    const v = [
      u.input_tokens ?? 0,
      u.output_tokens ?? 0,
      u.cache_read_input_tokens ?? 0,
      u.cache_creation_input_tokens ?? 0,
      oneHour,
    ];
    const key = o.message.id ?? `line-${o.uuid ?? i}`;
    const prev = messages.get(key);
    messages.set(key, { model: o.message.model, v: prev ? prev.v.map((p, k) => Math.max(p, v[k]!)) : v });
  });
  let micros = 0;
  const unknownModels = new Set<string>();
  for (const { model, v } of messages.values()) {
    const p = PUBLISHED[model];
    if (!p) {
      unknownModels.add(model);
      continue;
    }
    const [input, output, read, write, write1h] = v as [number, number, number, number, number];
    micros += input * p.in + read * p.read + (write - write1h) * p.w5m + write1h * p.w1h + output * p.out;
  }
  return { micros, unknownModels };
}

function withoutTtlSplit(turns: readonly PricedTurnInput[]): PricedTurnInput[] {
  return turns.map((t) => {
    if (!t.usage) return t;
    const { cacheCreate1h: _dropped, ...usage } = t.usage;
    return { ...t, usage };
  });
}

describe('cost of the 30 raw fixture transcripts', () => {
  it('is within 0.1% of the independent reference (it was not before the one-hour rate)', () => {
    const names = rawFixtureNames().filter((n) => /^s\d+/.test(n));
    expect(names).toHaveLength(30);
    const rows: { name: string; before: number; after: number; ref: number; unpriced: string }[] = [];
    for (const name of names) {
      const text = readRaw(name);
      const doc = parseClaudeCodeTranscript(text, { tier: 'metrics', sourcePath: `/tmp/${name}` });
      const after = priceSession(doc.turns);
      const before = priceSession(withoutTtlSplit(doc.turns));
      const ref = reference(text);
      expect(after.unpricedModels, name).toEqual([...ref.unknownModels].sort());
      rows.push({
        name,
        before: before.costNanos / 1000,
        after: after.costNanos / 1000,
        ref: ref.micros,
        unpriced: after.unpricedModels.join(','),
      });
    }
    const total = (k: 'before' | 'after' | 'ref') => rows.reduce((n, r) => n + r[k], 0);
    const pct = (x: number, ref: number) => (ref === 0 ? 0 : ((x - ref) / ref) * 100);
    const table = [
      'file                          before $     after $  reference $  before Δ%  after Δ%',
      ...rows.map(
        (r) =>
          `${r.name.padEnd(28)} ${(r.before / 1e6).toFixed(4).padStart(9)} ${(r.after / 1e6).toFixed(4).padStart(11)}` +
          ` ${(r.ref / 1e6).toFixed(4).padStart(12)} ${pct(r.before, r.ref).toFixed(2).padStart(9)} ` +
          `${pct(r.after, r.ref).toFixed(3).padStart(9)}${r.unpriced ? `  (unpriced: ${r.unpriced})` : ''}`,
      ),
      `${'TOTAL'.padEnd(28)} ${(total('before') / 1e6).toFixed(4).padStart(9)} ` +
        `${(total('after') / 1e6).toFixed(4).padStart(11)} ${(total('ref') / 1e6).toFixed(4).padStart(12)} ` +
        `${pct(total('before'), total('ref')).toFixed(2).padStart(9)} ` +
        `${pct(total('after'), total('ref')).toFixed(3).padStart(9)}`,
    ];
    if (process.env.PRINT_COST_TABLE) console.log(table.join('\n'));
    for (const r of rows) expect(Math.abs(pct(r.after, r.ref)), r.name).toBeLessThan(0.1);
    expect(Math.abs(pct(total('after'), total('ref')))).toBeLessThan(0.1);
    // The fixtures do write with the one-hour TTL, so the old pricing was measurably low.
    expect(pct(total('before'), total('ref'))).toBeLessThan(-1);
  });
});
