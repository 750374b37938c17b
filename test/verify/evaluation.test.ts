// The evaluation set (test/fixtures/verification): every labelled case must give its facts, verdict and rows,
// at the full tier (facts from tool input and output) and at the default redacted tier (facts from the events
// the CLI writes at capture). Prints the accuracy of each validator over the set.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { applyTier, parseClaudeCodeTranscript, parseCodexRollout } from '../../src/capture/index.js';
import { captureSession, withVerificationFacts } from '../../src/capture/facts.js';
import {
  evaluate,
  factsOfDocument,
  parsePolicy,
  type SessionVerification,
  type VerdictInput,
} from '../../src/verify/index.js';
import { readCases, transcriptPath, type CaseSpec, type SessionSpec } from '../fixtures/verification/render.js';

const cases = readCases();

function fullDoc(s: SessionSpec) {
  const text = fs.readFileSync(transcriptPath(s), 'utf8');
  const opts = { tier: 'full' as const };
  const full = s.agent === 'codex' ? parseCodexRollout(text, opts) : parseClaudeCodeTranscript(text, opts);
  // A metrics-tier session goes through the same capture, then loses everything but metrics.
  return s.tier === 'metrics' ? applyTier(withVerificationFacts(full).session, 'metrics') : full;
}

function redactedDoc(s: SessionSpec) {
  const text = fs.readFileSync(transcriptPath(s), 'utf8');
  return captureSession(text, s.agent === 'codex' ? 'codex' : 'claude-code', s.tier ?? 'redacted');
}

function labelled(v: SessionVerification) {
  return {
    runs: v.runs.map((r) => `${r.kind} ${r.result} ${r.scope}`),
    edits: v.edits.map((e) => `${e.file ?? '?'} ${e.test ? 'test' : 'code'}`),
    commits: v.commits,
    bypasses: v.bypasses.map((b) => b.how),
  };
}

function input(c: CaseSpec, verifications: (SessionVerification | null)[]): VerdictInput {
  const pr = (c.pr ?? {}) as Partial<VerdictInput>;
  return {
    sessions: c.sessions.map((s, i) => ({
      traceId: `t-${s.id}`,
      sessionId: s.id,
      startedAt: s.startedAt,
      verification: verifications[i]!,
    })),
    waiting: pr.waiting ?? false,
    commits: pr.commits === undefined ? null : pr.commits,
    changedFiles: pr.changedFiles ?? null,
    ci: pr.ci ?? null,
    criteria: pr.criteria ?? null,
    findings: pr.findings ?? [],
    history: pr.history ?? { typecheck: false, lint: false },
    emitted: pr.emitted ?? [],
    artifacts: pr.artifacts ?? [],
    policy: parsePolicy(c.policy ?? []),
  };
}

/** validator -> [right, total] over the set, where "right" means the row's presence and status matched. */
const accuracy = new Map<string, [number, number]>();

describe('the verdict evaluation set', () => {
  it('holds at least 40 cases, Claude Code and Codex', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.some((c) => c.sessions.some((s) => s.agent === 'codex'))).toBe(true);
  });

  for (const c of cases) {
    it(`${c.name}: ${c.about}`, () => {
      const full = c.sessions.map((s) => factsOfDocument(fullDoc(s)));
      const redacted = c.sessions.map((s) => factsOfDocument(redactedDoc(s)));
      for (const [id, want] of Object.entries(c.expect.facts ?? {})) {
        const k = c.sessions.findIndex((s) => s.id === id);
        const got = full[k] ?? null;
        if (want === null) {
          expect(got).toBeNull();
          expect(redacted[k]).toBeNull();
          continue;
        }
        expect(got).not.toBeNull();
        const seen = labelled(got!);
        for (const key of ['runs', 'edits', 'commits', 'bypasses'] as const)
          if (want[key]) expect(seen[key], `${id} ${key}`).toEqual(want[key]);
      }
      const atFull = evaluate(input(c, full));
      const atRedacted = evaluate(input(c, redacted));
      const rows = Object.fromEntries(atFull.rows.map((r) => [r.validator, r.status]));
      for (const v of new Set([...Object.keys(rows), ...Object.keys(c.expect.rows)])) {
        const a = accuracy.get(v) ?? [0, 0];
        accuracy.set(v, [a[0] + (rows[v] === c.expect.rows[v] ? 1 : 0), a[1] + 1]);
      }
      expect(rows).toEqual(c.expect.rows);
      expect(atFull.verdict).toBe(c.expect.verdict);
      if (c.expect.flagged !== undefined) expect(atFull.flagged).toBe(c.expect.flagged);
      if (c.expect.blocked !== undefined) expect(atFull.blocked).toBe(c.expect.blocked);
      // The default tier gives the same verdict and rows; only a sentence naming a command may differ.
      expect(atRedacted.verdict).toBe(atFull.verdict);
      expect(atRedacted.rows.map((r) => [r.validator, r.status, r.level, r.refs])).toEqual(
        atFull.rows.map((r) => [r.validator, r.status, r.level, r.refs]),
      );
      // Deterministic: the same input, the same evaluation.
      expect(JSON.stringify(evaluate(input(c, full)))).toBe(JSON.stringify(atFull));
    });
  }

  afterAll(() => {
    const lines = [...accuracy]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([v, [right, total]]) =>
          `  ${v.padEnd(28)} ${String(right).padStart(3)}/${String(total).padEnd(3)} ` +
          `${((100 * right) / total).toFixed(0)}%`,
      );
    console.log(`Verdict accuracy per validator over ${cases.length} cases:\n${lines.join('\n')}`);
  });
});
