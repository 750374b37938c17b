// Real session data for the agents and sessions tests: the canonical AgentSession v1 examples as they are,
// and the raw Claude Code transcripts converted by the capture module. Read from test/fixtures (copied from the shared
// fixtures with their NOTICE).
import fs from 'node:fs';
import { parseClaudeCodeTranscript } from '../../../src/capture/index.js';

const ROOT = new URL('../../fixtures/outerlayer-session-schema/', import.meta.url);

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function canonical(
  name: 'full' | 'minimal' | 'downconverted-metrics' | 'downconverted-redacted' | 'subagent-redacted',
): Doc {
  return JSON.parse(fs.readFileSync(new URL(`canonical/${name}.json`, ROOT), 'utf8')) as Doc;
}

export function rawNames(): string[] {
  return fs
    .readdirSync(new URL('raw/', ROOT))
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
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

/**
 * A session of a title-search test: its title, scope, start, assistant turns (1000 in / 100 out each) and tool error.
 */
export interface TitledSessionSpec {
  id: string;
  title?: string;
  repo?: string;
  branch?: string;
  agentType?: string;
  startedAt: string;
  /** assistant turns (each 1000 in / 100 out); the first human turn is always there */
  turns?: number;
  toolError?: boolean;
}

export function titledSession(s: TitledSessionSpec): Doc {
  return variant(canonical('full'), (d) => {
    d.id = s.id;
    d.env = { os: 'linux', gitRepo: s.repo ?? 'github.com/acme/alpha', gitBranch: s.branch ?? 'main' };
    d.agent = { type: s.agentType ?? 'claude-code' };
    if (s.title !== undefined) d.title = s.title;
    else delete d.title;
    d.startedAt = s.startedAt;
    d.endedAt = new Date(Date.parse(s.startedAt) + 60_000).toISOString();
    d.totals.wallClockMs = 60_000;
    d.models = ['claude-sonnet-4-6'];
    const turns: Doc[] = [{ index: 0, role: 'user', source: 'human', toolCalls: [], ts: s.startedAt }];
    for (let i = 0; i < (s.turns ?? 1); i += 1) {
      turns.push({
        index: turns.length,
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        ts: s.startedAt,
        usage: { in: 1000, out: 100, cacheRead: 0, cacheCreate: 0 },
        toolCalls: [{ name: 'Edit', isEdit: true, status: s.toolError && i === 0 ? 'error' : 'ok' }],
      });
    }
    d.turns = turns;
    d.events = [];
    delete d.outcome;
  });
}

/**
 * The title the list shows for a titledSession: the one it was sent with, else the one derived at ingest
 * (issue 45: its first user turn has no text, so its agent, branch and turn count, the human turn included).
 */
export function listedTitle(s: TitledSessionSpec): string {
  if (s.title !== undefined && s.title.trim() !== '') return s.title;
  return `${s.agentType ?? 'claude-code'} on ${s.branch ?? 'main'} · ${(s.turns ?? 1) + 1} turns`;
}
