// Real session data for the agents and sessions tests: the canonical AgentSession v1 examples as they are,
// and the raw Claude Code transcripts converted by the capture module. Read from test/fixtures (copied from the shared fixtures with their NOTICE).
import fs from 'node:fs';
import { parseClaudeCodeTranscript } from '../../../src/capture/index.js';

const ROOT = new URL('../../fixtures/outerlayer-session-schema/', import.meta.url);

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function canonical(name: 'full' | 'minimal' | 'downconverted-metrics' | 'downconverted-redacted' | 'subagent-redacted'): Doc {
  return JSON.parse(fs.readFileSync(new URL(`canonical/${name}.json`, ROOT), 'utf8')) as Doc;
}

export function rawNames(): string[] {
  return fs.readdirSync(new URL('raw/', ROOT)).filter((f) => f.endsWith('.jsonl')).sort();
}

export function raw(name: string, tier: 'metrics' | 'redacted' | 'full' = 'full'): Doc {
  return parseClaudeCodeTranscript(fs.readFileSync(new URL(`raw/${name}`, ROOT), 'utf8'), { tier }) as unknown as Doc;
}

export function schemaFile(): unknown {
  return JSON.parse(fs.readFileSync(new URL('agent-session.v1.schema.json', ROOT), 'utf8'));
}

/** A copy of a document with changes (deep copy first, so fixtures are never mutated). */
export function variant(doc: Doc, change: (d: Doc) => void): Doc {
  const copy = structuredClone(doc);
  change(copy);
  return copy;
}
