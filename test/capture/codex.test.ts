import { describe, expect, it } from 'vitest';
import { parseCodexRollout } from '../../src/capture/index.js';
import { schemaErrors } from './schema.js';

// A Codex CLI rollout written the way codex-rs writes ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl.
let clock = Date.parse('2026-10-01T09:00:00.000Z');
const at = (stepMs = 1000) => new Date((clock += stepMs)).toISOString();
const line = (type: string, payload: Record<string, unknown>, stepMs?: number) =>
  JSON.stringify({ timestamp: at(stepMs), type, payload });
const tokenCount = (last: number[], total: number[]) =>
  line('event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: {
        input_tokens: last[0],
        cached_input_tokens: last[1],
        output_tokens: last[2],
        reasoning_output_tokens: 0,
        total_tokens: last[0]! + last[2]!,
      },
      total_token_usage: {
        input_tokens: total[0],
        cached_input_tokens: total[1],
        output_tokens: total[2],
        reasoning_output_tokens: 0,
        total_tokens: total[0]! + total[2]!,
      },
      model_context_window: 272000,
    },
    rate_limits: null,
  });
const SECRET = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

const rollout = [
  line('session_meta', {
    id: '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    timestamp: '2026-10-01T09:00:00.000Z',
    cwd: '/home/dev/shop',
    originator: 'codex_cli_rs',
    cli_version: '0.46.0',
    instructions: null,
    git: {
      commit_hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      branch: 'fix/cart',
      repository_url: 'git@github.com:acme/shop.git',
    },
  }),
  line('response_item', {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }],
  }),
  line('turn_context', {
    cwd: '/home/dev/shop',
    approval_policy: 'on-request',
    model: 'gpt-5-codex',
    effort: 'medium',
  }),
  line('event_msg', { type: 'user_message', message: `fix the cart total, key is ${SECRET}`, images: [] }),
  line('response_item', {
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'Looking at the cart' }],
    encrypted_content: 'gAAAA',
  }),
  line('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', 'rg total src'] }),
    call_id: 'call_1',
  }),
  line(
    'response_item',
    {
      type: 'function_call_output',
      call_id: 'call_1',
      output: JSON.stringify({ output: 'src/cart.ts:3: total', metadata: { exit_code: 0, duration_seconds: 0.1 } }),
    },
    2000,
  ),
  // turn 1: 1200 input of which 1000 cached, 80 output
  tokenCount([1200, 1000, 80], [1200, 1000, 80]),
  // repeated count (same running total, new rate-limit data): must not be counted twice
  tokenCount([1200, 1000, 80], [1200, 1000, 80]),
  line('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', 'npm test'] }),
    call_id: 'call_2',
  }),
  line(
    'response_item',
    {
      type: 'function_call_output',
      call_id: 'call_2',
      output: JSON.stringify({ output: 'FAIL cart.test.ts\n1 failed', metadata: { exit_code: 1 } }),
    },
    3000,
  ),
  tokenCount([1500, 1200, 40], [2700, 2200, 120]),
  line('response_item', {
    type: 'custom_tool_call',
    status: 'completed',
    call_id: 'call_3',
    name: 'apply_patch',
    input: '*** Begin Patch\n*** Update File: /home/dev/shop/src/cart.ts\n@@\n-a\n+b\n*** End Patch',
  }),
  line('response_item', {
    type: 'custom_tool_call_output',
    call_id: 'call_3',
    output: JSON.stringify({
      output: 'Success. Updated the following files:\nM src/cart.ts\n',
      metadata: { exit_code: 0 },
    }),
  }),
  line('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', 'rm -rf build'] }),
    call_id: 'call_4',
  }),
  line('response_item', { type: 'function_call_output', call_id: 'call_4', output: 'exec command rejected by user' }),
  tokenCount([1600, 1500, 60], [4300, 3700, 180]),
  line('compacted', { message: 'summary of the work so far', replacement_history: [] }),
  line('event_msg', { type: 'user_message', message: 'open a PR', images: [] }),
  line('response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', 'gh pr create --fill'] }),
    call_id: 'call_5',
  }),
  line('response_item', {
    type: 'function_call_output',
    call_id: 'call_5',
    output: JSON.stringify({ output: 'https://github.com/acme/shop/pull/77\n', metadata: { exit_code: 0 } }),
  }),
  line('response_item', {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Opened the PR.' }],
  }),
  line('event_msg', { type: 'agent_message', message: 'Opened the PR.' }),
  tokenCount([900, 800, 30], [5200, 4500, 210]),
  line('event_msg', { type: 'stream_error', message: 'stream disconnected before completion' }),
  line('event_msg', { type: 'turn_aborted', reason: 'interrupted' }),
  line('wormhole_snapshot', { shards: 3 }),
  '{"timestamp":"2026-10-01T09:10:00.000Z","type":"event_msg","payload":{"type":"token_co',
].join('\n');

describe('parseCodexRollout', () => {
  it('reads a rollout into a valid AgentSession v1 with usage per model response', () => {
    const s = parseCodexRollout(rollout, { tier: 'redacted' });
    expect(schemaErrors(s)).toEqual([]);
    expect(s.id).toBe('0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(s.agent).toEqual({ type: 'codex', version: '0.46.0', entrypoint: 'codex_cli_rs' });
    expect(s.env).toEqual({
      cwd: '/home/dev/shop',
      gitBranch: 'fix/cart',
      gitRepo: 'github.com/acme/shop',
      commitSha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    });
    expect(s.models).toEqual(['gpt-5-codex']);
    // OpenAI counts cached input inside input_tokens; Codex turns keep that meaning (the gateway's pricer expects it).
    expect(s.totals).toMatchObject({
      inputTokens: 5200,
      outputTokens: 210,
      cacheReadTokens: 4500,
      cacheCreationTokens: 0,
    });
    expect(s.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'user', 'assistant']);
    expect(s.turns[1]!.usage).toEqual({ in: 1200, out: 80, cacheRead: 1000, cacheCreate: 0 });
    expect(s.turns[1]!.model).toBe('gpt-5-codex');
    const calls = s.turns.flatMap((t) => t.toolCalls);
    expect(calls.map((c) => [c.name, c.status, c.isEdit])).toEqual([
      ['shell', 'ok', false],
      ['shell', 'error', false],
      ['apply_patch', 'ok', true],
      ['shell', 'rejected', false],
      ['shell', 'ok', false],
    ]);
    expect(calls[0]!.durationMs).toBe(2000);
    expect(calls[1]!.errorSignature).toBe('FAIL cart.test.ts');
    expect(calls[2]!.file).toBe('src/cart.ts');
    expect(s.events.map((e) => e.type)).toEqual(['compaction', 'pr_linked', 'api_error', 'interrupt']);
    expect(s.outcome).toEqual({
      prNumber: 77,
      prUrl: 'https://github.com/acme/shop/pull/77',
      prs: [{ prNumber: 77, prUrl: 'https://github.com/acme/shop/pull/77' }],
    });
    expect(s.warnings).toEqual(
      expect.arrayContaining([
        { code: 'unknown_line_type', count: 1, detail: 'line type wormhole_snapshot' },
        { code: 'truncated_last_line', count: 1, detail: `line ${rollout.split('\n').length}` },
      ]),
    );
    expect(JSON.stringify(s)).not.toContain('fix the cart');
    expect(JSON.stringify(s)).not.toContain('Opened the PR');
  });

  it('full keeps text and tool input, scrubbed; metrics keeps only numbers', () => {
    const full = parseCodexRollout(rollout, { tier: 'full' });
    expect(schemaErrors(full)).toEqual([]);
    expect(full.turns[0]!.text).toBe('fix the cart total, key is [REDACTED:openai_key]');
    expect(full.turns[1]!.thinking).toBe('Looking at the cart');
    expect(full.turns[5]!.text).toBe('Opened the PR.');
    expect(full.turns[1]!.toolCalls[0]!.input).toEqual({ command: ['bash', '-lc', 'rg total src'] });
    expect(JSON.stringify(full)).not.toContain(SECRET);

    const metrics = parseCodexRollout(rollout, { tier: 'metrics' });
    expect(schemaErrors(metrics)).toEqual([]);
    expect(metrics.env).toEqual({});
    expect(metrics).not.toHaveProperty('outcome');
    expect(metrics.totals).toEqual(full.totals);
    expect(metrics.turns.flatMap((t) => t.toolCalls).map((c) => c.status)).toEqual([
      'ok',
      'error',
      'ok',
      'rejected',
      'ok',
    ]);
  });

  it('reads the older unwrapped rollout form', () => {
    const legacy = [
      JSON.stringify({
        id: '11112222-3333-4444-8555-666677778888',
        timestamp: '2025-05-01T10:00:00.000Z',
        instructions: null,
        git: { branch: 'main' },
      }),
      JSON.stringify({ record_type: 'state' }),
      JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }),
      JSON.stringify({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' }),
      JSON.stringify({
        type: 'function_call_output',
        call_id: 'c1',
        output: '{"output":"a","metadata":{"exit_code":0}}',
      }),
    ].join('\n');
    const s = parseCodexRollout(legacy);
    expect(schemaErrors(s)).toEqual([]);
    expect(s.id).toBe('11112222-3333-4444-8555-666677778888');
    expect(s.startedAt).toBe('2025-05-01T10:00:00.000Z');
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0]!.toolCalls).toEqual([expect.objectContaining({ name: 'shell', status: 'ok' })]);
  });
});
