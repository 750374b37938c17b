// AgentSession v1 documents for metrics and PR tests, shaped like the canonical fixtures
// (test/fixtures/outerlayer-session-schema/canonical/full.json), with the fields under test chosen.
import crypto from 'node:crypto';
import type { CallResult, TestGateway } from '../../helpers/gateway.js';

export interface TurnSpec {
  model: string;
  in: number;
  out: number;
  cacheRead?: number;
  cacheCreate?: number;
  /** Tool calls of the turn by status; names from `tool` (default Edit). */
  tools?: { name?: string; status: 'ok' | 'error' | 'rejected' }[];
}

export interface SessionSpec {
  id?: string;
  startedAt: string;
  repo?: string;
  branch?: string;
  commitSha?: string;
  agentType?: string;
  workerKind?: 'seat' | 'cloud' | 'ci' | 'shared';
  actorId?: string;
  /** Human user turns (steering = humans - 1). */
  humanTurns?: number;
  turns: TurnSpec[];
  apiErrors?: number;
  prNumber?: number;
  prUrl?: string;
  prLinked?: number[];
  title?: string;
}

export type SessionDoc = Record<string, unknown>;

export function sessionDoc(spec: SessionSpec): SessionDoc {
  const id = spec.id ?? crypto.randomUUID();
  const start = Date.parse(spec.startedAt);
  const turns: Record<string, unknown>[] = [];
  let index = 0;
  const ts = () => new Date(start + index * 1000).toISOString();
  const humans = spec.humanTurns ?? 1;
  for (let h = 0; h < humans; h++)
    turns.push({ index: index++, role: 'user', source: 'human', text: null, toolCalls: [], ts: ts() });
  for (const t of spec.turns) {
    turns.push({
      index: index++,
      role: 'assistant',
      model: t.model,
      text: null,
      ts: ts(),
      usage: { in: t.in, out: t.out, cacheRead: t.cacheRead ?? 0, cacheCreate: t.cacheCreate ?? 0 },
      toolCalls: (t.tools ?? []).map((c) => ({
        name: c.name ?? 'Edit',
        status: c.status,
        isEdit: (c.name ?? 'Edit') === 'Edit',
      })),
    });
  }
  const events: Record<string, unknown>[] = [];
  let seq = 0;
  for (let i = 0; i < (spec.apiErrors ?? 0); i++) events.push({ type: 'api_error', seq: seq++, ts: ts(), data: {} });
  for (const n of spec.prLinked ?? []) events.push({ type: 'pr_linked', seq: seq++, ts: ts(), data: { prNumber: n } });
  const sum = (k: 'in' | 'out' | 'cacheRead' | 'cacheCreate') => spec.turns.reduce((n, t) => n + (t[k] ?? 0), 0);
  const doc: SessionDoc = {
    schemaVersion: 1,
    id,
    agent: { type: spec.agentType ?? 'claude-code', version: '2.1.193' },
    actor: { id: spec.actorId ?? 'member-1' },
    captureTier: 'redacted',
    env: {
      ...(spec.repo !== undefined ? { gitRepo: `github.com/${spec.repo}` } : {}),
      ...(spec.branch !== undefined ? { gitBranch: spec.branch } : {}),
      ...(spec.commitSha !== undefined ? { commitSha: spec.commitSha } : {}),
    },
    ...(spec.workerKind ? { workerKind: spec.workerKind } : {}),
    ...(spec.title ? { title: spec.title } : {}),
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + index * 1000).toISOString(),
    models: [...new Set(spec.turns.map((t) => t.model))],
    turns,
    events,
    totals: {
      inputTokens: sum('in'),
      outputTokens: sum('out'),
      cacheReadTokens: sum('cacheRead'),
      cacheCreationTokens: sum('cacheCreate'),
    },
    warnings: [],
  };
  if (spec.prNumber !== undefined)
    doc.outcome = { prNumber: spec.prNumber, ...(spec.prUrl ? { prUrl: spec.prUrl } : {}) };
  return doc;
}

export async function ingest(
  gw: TestGateway,
  auth: { token: string; appId: string },
  docs: SessionDoc[],
): Promise<CallResult> {
  for (let i = 0; i < docs.length; i += 50) {
    const r = await gw.call('POST', '/v1/agents/sync', {
      ...auth,
      body: { schemaVersion: 1, sessions: docs.slice(i, i + 50) },
    });
    if (r.status !== 200 || r.body.data.rejected.length) throw new Error(`ingest: ${r.status} ${r.text.slice(0, 500)}`);
    if (i + 50 >= docs.length) return r;
  }
  throw new Error('nothing to ingest');
}
