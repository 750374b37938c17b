// The date, time and date-time checks of src/server/formats.ts accept exactly what ajv-formats accepts in its
// default (full) mode: a hand-checked list of edge cases with the answer worked out from RFC 3339 and
// ajv-formats' rules, then ajv-formats itself on the same list and on thousands of mutated strings. Last, the
// sync route answers by the new check (a Feb 30 refused, a leap second accepted).
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { isDate, isDateTime, isTime } from '../../src/server/formats.js';
import type { Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';
import { canonical } from '../areas/sessions/fixtures.js';

type Check = (s: string) => boolean;
const plugin = (
  addFormatsModule as unknown as { default: { get(name: string, mode?: 'full' | 'fast'): { validate: Check } } }
).default;
const reference = {
  date: plugin.get('date').validate,
  time: plugin.get('time').validate,
  'date-time': plugin.get('date-time').validate,
};
const ours = { date: isDate, time: isTime, 'date-time': isDateTime };

// [value, accepted?] — the answer reasoned by hand, not read off either implementation.
const DATE_TIMES: [string, boolean][] = [
  ['2026-11-23T22:14:53Z', true],
  ['2026-11-23t22:14:53z', true], // lowercase t and z
  ['2026-11-23 22:14:53Z', true], // a space for the T (RFC 3339 §5.6 note)
  ['2026-11-23\t22:14:53Z', true], // ajv-formats splits at any \s
  ['2026-11-23\u00a022:14:53Z', true], // no-break space is \s too
  ['2026-11-23T22:14:53.123456789Z', true],
  ['2026-01-01T00:00:59.999999Z', true],
  ['2026-11-23T22:14:53+05:30', true],
  ['2026-11-23T22:14:53+0530', true],
  ['2026-11-23T22:14:53+05', true],
  ['2026-11-23T22:14:53-23:59', true],
  ['2024-02-29T00:00:00Z', true], // leap year
  ['2000-02-29T00:00:00Z', true], // divisible by 400
  ['0000-01-01T00:00:00Z', true],
  ['1990-12-31T23:59:60Z', true], // leap second
  ['1990-12-31T23:59:60.5Z', true],
  ['1990-12-31T15:59:60-08:00', true], // 23:59:60 UTC
  ['1990-12-31T23:59:60+00:00', true],
  ['1990-12-31T00:00:60+00:01', true], // 23:59:60 UTC the day before, by ajv-formats' arithmetic
  ['1990-12-31T23:59:59.9999999999999999999Z', true], // the fraction rounds to 60: read as a leap second
  ['2026-11-23T22:14:59.9999999999999999999Z', false], // ... which is refused anywhere but 23:59 UTC
  ['2023-02-29T00:00:00Z', false],
  ['1900-02-29T00:00:00Z', false], // a century, not divisible by 400
  ['2026-02-30T00:00:00Z', false],
  ['2026-04-31T00:00:00Z', false],
  ['2026-13-01T00:00:00Z', false],
  ['2026-00-10T00:00:00Z', false],
  ['2026-01-00T00:00:00Z', false],
  ['2026-11-23T24:00:00Z', false],
  ['2026-11-23T23:60:00Z', false],
  ['2026-11-23T22:14:60Z', false], // a leap second not at 23:59 UTC
  ['1990-12-31T23:59:60+01:00', false], // 22:59:60 UTC
  ['2026-11-23T23:59:61Z', false],
  ['2026-11-23T22:14:53', false], // the zone is required
  ['2026-11-23T22:14:53+24:00', false],
  ['2026-11-23T22:14:53+05:60', false],
  ['2026-11-23T22:14:53.Z', false],
  ['2026-11-23T22:14:53+5:30', false],
  ['2026-11-23T22:14:53+05:3', false],
  ['2026-11-23T22:14:53+05:', false],
  ['2026-11-23T22:14:53+05:30Z', false],
  ['2026-11-23T22:14:53ZZ', false],
  ['2026-11-23TT22:14:53Z', false],
  ['2026-11-23T22:14:53Z\n', false],
  [' 2026-11-23T22:14:53Z', false],
  ['2026-11-2322:14:53Z', false],
  ['26-11-23T22:14:53Z', false],
  ['2026-11-23T22:14Z', false],
  ['2026-1-23T22:14:53Z', false],
  ['\uff12026-11-23T22:14:53Z', false], // a fullwidth digit is not \d
  ['2026-11-23X22:14:53Z', false],
  ['', false],
];
const DATES: [string, boolean][] = [
  ['2024-02-29', true],
  ['2026-12-31', true],
  ['2023-02-29', false],
  ['2026-1-01', false],
  ['2026-01-01Z', false],
  ['2026-01-32', false],
  ['2026-01-01 ', false],
];
const TIMES: [string, boolean][] = [
  ['23:59:60Z', true],
  ['12:00:00+01', true],
  ['12:00:00.1z', true],
  ['12:00:00', false],
  ['12:00Z', false],
  ['12:00:00.Z', false],
  ['24:00:00Z', false],
];

/** A deterministic pseudo-random source. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Strings near valid ones: characters replaced, inserted or deleted from the alphabet the formats read. */
function mutations(seeds: string[], count: number): string[] {
  const r = rng(17);
  const alphabet = '0123456789:-.+TtZz \n\t09595960231229';
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    let s = seeds[Math.floor(r() * seeds.length)]!;
    const edits = 1 + Math.floor(r() * 3);
    for (let e = 0; e < edits; e += 1) {
      const at = Math.floor(r() * (s.length + 1));
      const c = alphabet[Math.floor(r() * alphabet.length)]!;
      const op = r();
      s =
        op < 0.5
          ? s.slice(0, at) + c + s.slice(at + 1)
          : op < 0.8
            ? s.slice(0, at) + c + s.slice(at)
            : s.slice(0, at) + s.slice(at + 1);
    }
    out.push(s);
  }
  return out;
}

describe('date formats (src/server/formats.ts)', () => {
  const lists = { 'date-time': DATE_TIMES, date: DATES, time: TIMES } as const;
  for (const [name, cases] of Object.entries(lists) as [keyof typeof lists, [string, boolean][]][]) {
    it(`${name}: the hand-checked edge cases, and ajv-formats agrees with each`, () => {
      for (const [value, accepted] of cases) {
        expect(ours[name](value), JSON.stringify(value)).toBe(accepted);
        expect(reference[name](value), `ajv-formats on ${JSON.stringify(value)}`).toBe(accepted);
      }
    });

    it(`${name}: the same answer as ajv-formats on 20,000 mutated strings`, () => {
      const strings = mutations(
        cases.filter(([, ok]) => ok).map(([v]) => v),
        20_000,
      );
      const differ = strings.filter((s) => ours[name](s) !== reference[name](s));
      expect(differ).toEqual([]);
      // The mutations reach both answers, so the comparison means something.
      expect(strings.filter((s) => reference[name](s)).length).toBeGreaterThan(500);
      expect(strings.filter((s) => !reference[name](s)).length).toBeGreaterThan(500);
    });
  }
});

describe('POST /v1/agents/sync checks timestamps with these formats', () => {
  let gw: TestGateway;
  let t: Tenant;
  withGatewayAndTenants((s) => ({ gw, a: t } = s));

  // The published schema pairs each timestamp's format with a pattern (uppercase T and Z, no leap second, seconds
  // optional), checked first; what only the format refuses is a time without seconds.
  it('refuses a session whose startedAt has no seconds and accepts one with a fraction and an offset', async () => {
    const base = canonical('minimal');
    const bad = { ...base, id: 'no-seconds', startedAt: '2026-07-01T10:00Z' };
    const good = { ...base, id: 'offset', startedAt: '2026-07-01T10:00:00.123+02:00' };
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: t.factoryKey,
      appId: t.appId,
      body: { schemaVersion: 1, sessions: [bad, good] },
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.rejected).toEqual([
      { index: 0, id: 'no-seconds', reason: 'startedAt must match format "date-time"' },
    ]);
    expect(r.body.data.accepted).toEqual(['offset']);
  });
});
