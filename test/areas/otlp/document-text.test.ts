// A telemetry document compressed a piece at a time (only the turns new since the last export) inflates to exactly
// JSON.stringify's bytes, as the fold extends the document export after export, and reads back as any stored
// document; the check of its new turns alone accepts and refuses what checking it whole does. Pure functions.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkSession } from '../../../src/areas/agents/validate.js';
import { checkTelemetrySession, encodeTelemetryDocument } from '../../../src/areas/otlp/document-text.js';
import { decodeDocument, type AgentSessionV1 } from '../../../src/areas/sessions/document.js';
import { foldInto, sessionDocument, type StoredEvent } from '../../../src/areas/otlp/session.js';

const t0 = Date.UTC(2026, 10, 1, 9);
const request = (ts: number, model = 'claude-sonnet-4-5-20250929'): StoredEvent => ({
  name: 'api_request',
  ts,
  seq: 0,
  data: { model, cost_usd: 0.01, input_tokens: 10, output_tokens: 5, duration_ms: 900, 'user.email': 'a"b@x.io' },
});
const tool = (ts: number, success = 'true'): StoredEvent => ({
  name: 'tool_result',
  ts,
  seq: 0,
  data: { tool_name: 'Bash', success, duration_ms: 12 },
});
const prompt = (ts: number): StoredEvent => ({ name: 'user_prompt', ts, seq: 0, data: { prompt_length: 4 } });

function expectStoredAsIs(doc: AgentSessionV1) {
  const encoded = encodeTelemetryDocument(doc);
  const json = JSON.stringify(doc);
  expect(zlib.gunzipSync(encoded.body).toString()).toBe(json);
  expect(encoded.rawBytes).toBe(Buffer.byteLength(json));
  expect(decodeDocument(encoded.encoding, encoded.body)).toEqual(doc);
}

describe('a telemetry document written and checked a piece at a time', () => {
  it('inflates to JSON.stringify of the whole document after every fold, a tool result joining the open turn', () => {
    let doc = sessionDocument('claude-code', 's-"turns":[]-1', [prompt(t0), request(t0 + 1)]);
    expectStoredAsIs(doc);
    const batches: StoredEvent[][] = [
      [tool(t0 + 2)], // joins the request's turn, the last one: it was not settled
      [request(t0 + 3), tool(t0 + 4, 'false')],
      [tool(t0 + 5)],
      [prompt(t0 + 6), request(t0 + 7, 'claude-opus-4-1'), tool(t0 + 8), request(t0 + 9)],
      [{ name: 'api_error', ts: t0 + 10, seq: 0, data: { status_code: '529', error: 'overloaded' } }],
    ];
    for (const events of batches) {
      const next = foldInto(doc, events);
      expect(next).not.toBeNull();
      doc = next!;
      expectStoredAsIs(doc);
      expect(checkTelemetrySession(doc)).toEqual(checkSession(doc));
    }
    expect(doc.turns.map((t) => t.toolCalls.length)).toEqual([0, 1, 2, 0, 1, 0]);
  });

  it('stays exact as settled turns are sealed into members of their own (a long session)', () => {
    let doc = sessionDocument('claude-code', 's-long', [prompt(t0)]);
    for (let batch = 0; batch < 12; batch++) {
      const start = t0 + 1 + batch * 100;
      doc = foldInto(
        doc,
        Array.from({ length: 100 }, (_, i) => (i % 4 === 3 ? tool(start + i) : request(start + i))),
      )!;
      expectStoredAsIs(doc);
    }
    expect(doc.turns).toHaveLength(901);
  });

  it('refuses a new turn that does not validate, with the reason checking it whole gives', () => {
    let doc = sessionDocument('claude-code', 's-2', [request(t0), request(t0 + 1)]);
    expect(checkTelemetrySession(doc).ok).toBe(true);
    doc = foldInto(doc, [request(t0 + 2, 'm'.repeat(201))])!;
    const whole = checkSession(doc);
    expect(whole.ok).toBe(false);
    expect(checkTelemetrySession(doc)).toEqual(whole);
  });
});
