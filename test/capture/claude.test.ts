import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import {
  applyTier,
  parseClaudeCodeTranscript,
  type AgentSessionV1,
  type CaptureTier,
} from '../../src/capture/index.js';
import { RAW_DIR, rawFixtureNames, readCanonical, readRaw, schemaErrors } from './schema.js';
import { priceSession } from '../../src/pricing/cost.js';
import { TTL_COSTS_MICROS, ttlTranscript } from '../helpers/cache-ttl.js';

interface ManifestEntry {
  name: string;
  subagent: boolean;
  features: {
    compaction?: boolean;
    apiError?: boolean;
    prLink?: boolean;
    sidechain?: boolean;
    interrupt?: boolean;
    malformed?: boolean;
  };
}
const manifest = JSON.parse(fs.readFileSync(`${RAW_DIR}MANIFEST.json`, 'utf8')) as { files: ManifestEntry[] };

/**
 * Token totals computed straight from the raw lines, independently of the capture code: every assistant line's
 * message.usage, one entry per message id (lines of the same message repeat its usage while output grows, so
 * each counter takes its largest value), lines without an id counted on their own.
 */
function expectedTotals(text: string) {
  const perMessage = new Map<string, number[]>();
  text.split('\n').forEach((line, i) => {
    let o: { type?: string; uuid?: string; message?: { id?: string; usage?: Record<string, number> } };
    try {
      o = JSON.parse(line) as typeof o;
    } catch {
      return;
    }
    if (o.type !== 'assistant' || !o.message?.usage) return;
    const u = o.message.usage;
    const v = [
      u.input_tokens ?? 0,
      u.output_tokens ?? 0,
      u.cache_read_input_tokens ?? 0,
      u.cache_creation_input_tokens ?? 0,
    ];
    const key = o.message.id ?? `line-${o.uuid ?? i}`;
    const prev = perMessage.get(key);
    perMessage.set(key, prev ? prev.map((p, k) => Math.max(p, v[k]!)) : v);
  });
  const sum = [0, 0, 0, 0];
  for (const v of perMessage.values())
    v.forEach((n, k) => {
      sum[k]! += n;
    });
  return { inputTokens: sum[0], outputTokens: sum[1], cacheReadTokens: sum[2], cacheCreationTokens: sum[3] };
}

const TIERS: CaptureTier[] = ['metrics', 'redacted', 'full'];

describe('parseClaudeCodeTranscript on every raw fixture', () => {
  for (const name of rawFixtureNames()) {
    it(`${name}: valid AgentSession v1 at every tier, token totals match the raw usage`, () => {
      const text = readRaw(name);
      const expected = expectedTotals(text);
      for (const tier of TIERS) {
        const s = parseClaudeCodeTranscript(text, { tier, sourcePath: `/tmp/${name}` });
        expect(schemaErrors(s)).toEqual([]);
        expect(s.captureTier).toBe(tier);
        expect(s.agent.type).toBe('claude-code');
        expect({
          inputTokens: s.totals.inputTokens,
          outputTokens: s.totals.outputTokens,
          cacheReadTokens: s.totals.cacheReadTokens,
          cacheCreationTokens: s.totals.cacheCreationTokens,
        }).toEqual(expected);
        // Totals are the sum of the turns (nothing counted outside a turn).
        const turnOut = s.turns.reduce((n, t) => n + (t.usage?.out ?? 0), 0);
        expect(turnOut).toBe(s.totals.outputTokens);
        // One assistant turn per message id.
        const ids = s.turns.filter((t) => t.messageId).map((t) => t.messageId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(s.turns.map((t) => t.index)).toEqual(s.turns.map((_, i) => i));
      }
    });
  }

  it('reports what MANIFEST.json says each fixture holds', () => {
    for (const entry of manifest.files) {
      const s = parseClaudeCodeTranscript(readRaw(entry.name));
      if (entry.features.malformed) {
        expect(s.warnings.length, entry.name).toBeGreaterThan(0);
        continue;
      }
      const types = new Set(s.events.map((e) => e.type));
      expect(types.has('compaction'), `${entry.name} compaction`).toBe(entry.features.compaction ?? false);
      // MANIFEST's apiError means the request-retry lines (system/api_error); the placeholder assistant messages
      // Claude Code writes when a call finally fails are api_error events too, with source "message".
      const retries = s.events.filter((e) => e.type === 'api_error' && e.data?.source === 'request');
      expect(retries.length > 0, `${entry.name} api errors`).toBe(entry.features.apiError ?? false);
      expect(types.has('pr_linked'), `${entry.name} pr links`).toBe(entry.features.prLink ?? false);
      expect((s.outcome?.prs?.length ?? 0) > 0, `${entry.name} outcome prs`).toBe(entry.features.prLink ?? false);
      expect(types.has('interrupt'), `${entry.name} interrupts`).toBe(entry.features.interrupt ?? false);
      expect(s.subagent !== undefined, `${entry.name} subagent`).toBe(entry.subagent);
      expect(s.warnings, entry.name).toEqual([]);
    }
  });

  it('keeps the one-hour part of each cache write beside the total (issue 15 §1), priced at its rate', () => {
    const s = parseClaudeCodeTranscript(ttlTranscript('ttl-capture'), { tier: 'metrics' });
    expect(schemaErrors(s)).toEqual([]);
    const assistants = s.turns.filter((t) => t.role === 'assistant');
    expect(assistants.map((t) => t.usage)).toEqual([
      { in: 10, out: 300, cacheRead: 20_000, cacheCreate: 4000 },
      { in: 10, out: 300, cacheRead: 20_000, cacheCreate: 4000, cacheCreate1h: 4000 },
      { in: 10, out: 300, cacheRead: 20_000, cacheCreate: 4000, cacheCreate1h: 1500 },
    ]);
    // Turn by turn and as a session, the figures computed by hand in test/helpers/cache-ttl.ts.
    expect(assistants.map((t) => priceSession([t]).costMicros)).toEqual([
      TTL_COSTS_MICROS.fiveMinute,
      TTL_COSTS_MICROS.oneHour,
      TTL_COSTS_MICROS.mixed,
    ]);
    expect(priceSession(s.turns).costMicros).toBe(TTL_COSTS_MICROS.session);
  });

  it('sums the one-hour writes of every fixture as the raw lines do', () => {
    for (const name of rawFixtureNames()) {
      const text = readRaw(name);
      const perMessage = new Map<string, number>();
      for (const line of text.split('\n')) {
        let o: {
          type?: string;
          message?: { id?: string; usage?: { cache_creation?: { ephemeral_1h_input_tokens?: number } } };
        };
        try {
          o = JSON.parse(line) as typeof o;
        } catch {
          continue;
        }
        const h = o.message?.usage?.cache_creation?.ephemeral_1h_input_tokens;
        if (o.type !== 'assistant' || typeof h !== 'number' || !o.message?.id) continue;
        perMessage.set(o.message.id, Math.max(perMessage.get(o.message.id) ?? 0, h));
      }
      const expected = [...perMessage.values()].reduce((n, h) => n + h, 0);
      const s = parseClaudeCodeTranscript(text);
      expect(
        s.turns.reduce((n, t) => n + (t.usage?.cacheCreate1h ?? 0), 0),
        name,
      ).toBe(expected);
    }
  });

  it('hand-checked numbers', () => {
    // synthetic-future-version.jsonl: two assistant lines, 10+4 in, 5+2 out, 0+9 cache read, 0+1 cache creation.
    const syn = parseClaudeCodeTranscript(readRaw('synthetic-future-version.jsonl'));
    expect(syn.totals).toMatchObject({
      inputTokens: 14,
      outputTokens: 7,
      cacheReadTokens: 9,
      cacheCreationTokens: 1,
      wallClockMs: 11_000,
    });
    // s01: msg_01QFmpcToW9295grtcXDQshk is written twice, output_tokens 4 then 96: the turn keeps 96, not 100.
    const s01 = parseClaudeCodeTranscript(readRaw('s01-small-ee5e9b07.jsonl'));
    const turn = s01.turns.find((t) => t.messageId === 'msg_01QFmpcToW9295grtcXDQshk');
    expect(turn?.usage).toEqual({ in: 9178, out: 96, cacheRead: 0, cacheCreate: 19015 });
    expect(s01.totals).toMatchObject({
      inputTokens: 9486,
      outputTokens: 1338,
      cacheReadTokens: 58438,
      cacheCreationTokens: 49390,
    });
    expect(s01.subagent).toEqual({
      agentId: 'aab574376abcb02f3',
      parentSessionId: '6c106dc6-97d0-4c43-854e-18d33b520e2d',
    });
    expect(s01.id).not.toBe('6c106dc6-97d0-4c43-854e-18d33b520e2d'); // a subagent is its own session
    expect(s01.turns[0]).toMatchObject({ role: 'user', source: 'peer' });
    // s05: a large session with a compaction and two PR links.
    const s05 = parseClaudeCodeTranscript(readRaw('s05-large-0c76305d.jsonl'));
    expect(s05.id).toBe('92b2a4fc-36f8-489b-b400-146192c641bf');
    expect(s05.models).toEqual(['claude-sonnet-4-6']);
    expect(s05.totals).toMatchObject({
      inputTokens: 213,
      outputTokens: 90916,
      cacheReadTokens: 18976384,
      cacheCreationTokens: 293640,
    });
    expect(s05.outcome?.prs?.map((p) => p.prNumber)).toEqual([2836, 2852]);
    expect(s05.outcome?.prNumber).toBe(2852);
    expect(s05.env.gitRepo).toBe('github.com/org-3751/repo-3daf');
    expect(s05.events.find((e) => e.type === 'compaction')?.data).toMatchObject({
      preTokens: 167258,
      postTokens: 4679,
    });
    const s05calls = s05.turns.flatMap((t) => t.toolCalls);
    expect(s05calls.length).toBe(221);
    expect(s05calls.filter((c) => c.status === 'error').length).toBe(10);
    // s06: two tool calls the user declined ("The user doesn't want to proceed...").
    const s06calls = parseClaudeCodeTranscript(readRaw('s06-large-43526e01.jsonl')).turns.flatMap((t) => t.toolCalls);
    expect(s06calls.filter((c) => c.status === 'rejected').length).toBe(2);
    // s03: two placeholder assistant messages for failed API calls: events, not turns, and no "<synthetic>" model.
    const s03 = parseClaudeCodeTranscript(readRaw('s03-small-6f07cec6.jsonl'));
    expect(s03.events.filter((e) => e.type === 'api_error').map((e) => e.data?.source)).toEqual(['message', 'message']);
    expect(s03.models).toEqual(['claude-opus-4-8']);
  });

  it('tolerates unknown line types, unknown blocks, unknown fields and a truncated last line', () => {
    const s = parseClaudeCodeTranscript(readRaw('synthetic-future-version.jsonl'), { tier: 'full' });
    expect(s.agent.version).toBe('9.9.9');
    expect(s.models).toEqual(['claude-fable-7']);
    expect(s.warnings).toEqual(
      expect.arrayContaining([
        { code: 'truncated_last_line', count: 1, detail: 'line 7' },
        { code: 'unknown_line_type', count: 1, detail: 'line type hologram-checkpoint' },
        { code: 'unknown_line_type', count: 1, detail: 'line type quantum-sync' },
        { code: 'unknown_content_block', count: 1, detail: 'block type neural_shard' },
      ]),
    );
    expect(s.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(s.turns[2]!.toolCalls).toEqual([
      expect.objectContaining({
        name: 'TeleportFile',
        status: 'ok',
        isEdit: false,
        file: 'f000000.ts',
        durationMs: 2000,
      }),
    ]);
    // A truncated line in the middle is malformed, not truncated.
    const lines = readRaw('synthetic-future-version.jsonl').split('\n');
    const middle = [lines[0], '{"type":"user",', ...lines.slice(1, 6)].join('\n');
    expect(parseClaudeCodeTranscript(middle).warnings).toContainEqual({
      code: 'malformed_line',
      count: 1,
      detail: 'line 2',
    });
    // Metrics keeps the warning codes and counts, not the details, merged by code.
    const metrics = parseClaudeCodeTranscript(readRaw('synthetic-future-version.jsonl'), { tier: 'metrics' });
    expect(metrics.warnings).toContainEqual({ code: 'unknown_line_type', count: 2 });
  });
});

describe('redaction tiers', () => {
  it('redacted (the default) sends no message text, thinking, tool input or output', () => {
    for (const name of rawFixtureNames()) {
      const s = parseClaudeCodeTranscript(readRaw(name));
      expect(s.captureTier).toBe('redacted');
      const json = JSON.stringify(s);
      // The sanitizer replaced every free text with §str:N§ or runs of x: none of it may appear, except in
      // the one line of a tool error the redacted tier keeps (errorSignature, as in the canonical documents).
      const withoutSignatures = JSON.stringify(s, (k, v: unknown) => (k === 'errorSignature' ? undefined : v));
      expect(withoutSignatures, name).not.toMatch(/§str:/);
      expect(withoutSignatures, name).not.toMatch(/x{12,}/);
      expect(json.length).toBeGreaterThan(withoutSignatures.length - 1);
      for (const t of s.turns) {
        expect(t).not.toHaveProperty('text');
        expect(t).not.toHaveProperty('thinking');
        for (const c of t.toolCalls) {
          expect(c).not.toHaveProperty('input');
          expect(c).not.toHaveProperty('output');
        }
      }
      expect(s).not.toHaveProperty('title');
    }
  });

  it('full keeps text and titles; metrics drops paths, branches, files, PRs and event data', () => {
    const full = parseClaudeCodeTranscript(readRaw('s05-large-0c76305d.jsonl'), { tier: 'full' });
    expect(full.title).toBeTruthy();
    expect(full.turns.some((t) => typeof t.text === 'string' && t.text.length > 0)).toBe(true);
    expect(full.turns.some((t) => t.toolCalls.some((c) => c.input !== undefined))).toBe(true);

    const metrics = parseClaudeCodeTranscript(readRaw('s05-large-0c76305d.jsonl'), { tier: 'metrics' });
    expect(metrics.env).toEqual({});
    expect(metrics).not.toHaveProperty('outcome');
    expect(metrics.events.every((e) => e.data === undefined)).toBe(true);
    expect(
      metrics.turns.flatMap((t) => t.toolCalls).every((c) => c.file === undefined && c.errorSignature === undefined),
    ).toBe(true);
    // The metrics are the same numbers at every tier.
    expect(metrics.totals).toEqual(full.totals);
    expect(metrics.turns.length).toBe(full.turns.length);
    expect(metrics.events.map((e) => e.type)).toEqual(full.events.map((e) => e.type));
  });

  it('down-converting the canonical full document gives the canonical redacted and metrics documents', () => {
    const full = readCanonical('full.json') as AgentSessionV1;
    expect(applyTier(full, 'redacted')).toEqual(readCanonical('downconverted-redacted.json'));
    expect(applyTier(full, 'metrics')).toEqual(readCanonical('downconverted-metrics.json'));
    expect(applyTier(full, 'full')).toEqual(full);
    // A document never gains detail.
    expect(applyTier(readCanonical('downconverted-metrics.json') as AgentSessionV1, 'full').captureTier).toBe(
      'metrics',
    );
  });
});

describe('secret scrubbing at every tier', () => {
  const secrets = {
    anthropic: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    github: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    attest: 'sk_outerlayer_0123456789abcdefghijABCDEFGHIJklmnop',
    aws: 'AKIAIOSFODNN7EXAMPLE',
    password: 'hunter2hunter2',
    pem: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x\n-----END RSA PRIVATE KEY-----',
  };
  const base = {
    sessionId: '11111111-1111-4111-8111-111111111111',
    version: '2.1.200',
    cwd: '/home/dev/app',
    isSidechain: false,
  };
  const transcript = [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-07-01T10:00:00.000Z',
      gitBranch: `feat/${secrets.github}`,
      message: { role: 'user', content: `deploy with ANTHROPIC_API_KEY=${secrets.anthropic} please` },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      timestamp: '2026-07-01T10:00:05.000Z',
      message: {
        id: 'msg_1',
        model: 'claude-opus-4-8',
        role: 'assistant',
        content: [
          { type: 'text', text: `Using token ${secrets.attest}` },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'Bash',
            input: {
              command: `curl -u admin:${secrets.password}@x https://user:${secrets.password}@example.com`,
              password: secrets.password,
            },
          },
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'Read',
            input: { file_path: `/home/dev/app/keys/${secrets.aws}.pem` },
          },
        ],
        usage: { input_tokens: 3, output_tokens: 40, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 },
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'u2',
      timestamp: '2026-07-01T10:00:06.000Z',
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: `Error: auth failed for ${secrets.github}`,
            is_error: true,
          },
        ],
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'u3',
      timestamp: '2026-07-01T10:00:07.000Z',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: secrets.pem }] },
    },
    { type: 'ai-title', aiTitle: `Rotate ${secrets.anthropic}`, sessionId: base.sessionId },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');

  for (const tier of TIERS) {
    it(`${tier}: no secret survives`, () => {
      const s = parseClaudeCodeTranscript(transcript, { tier });
      expect(schemaErrors(s)).toEqual([]);
      const json = JSON.stringify(s);
      for (const [kind, secret] of Object.entries(secrets))
        expect(json, kind).not.toContain(kind === 'pem' ? 'MIIEowIBAAKCAQEA7x' : secret);
      expect(s.totals).toMatchObject({
        inputTokens: 3,
        outputTokens: 40,
        cacheReadTokens: 100,
        cacheCreationTokens: 7,
      });
      if (tier !== 'metrics') {
        expect(s.env.gitBranch).toBe('feat/[REDACTED:github_token]');
        expect(s.turns[1]!.toolCalls[0]).toMatchObject({
          status: 'error',
          errorSignature: 'Error: auth failed for [REDACTED:github_token]',
        });
        expect(s.turns[1]!.toolCalls[1]!.file).toBe('keys/[REDACTED:aws_access_key].pem');
      }
      if (tier === 'full') {
        expect(s.turns[0]!.text).toBe('deploy with ANTHROPIC_API_KEY=[REDACTED:anthropic_key] please');
        expect(s.title).toBe('Rotate [REDACTED:anthropic_key]');
        expect(s.turns[1]!.toolCalls[1]!.output).toBe('[REDACTED:private_key]');
        expect((s.turns[1]!.toolCalls[0]!.input as { password: string }).password).toBe('[REDACTED:named_secret]');
      }
    });
  }
});
