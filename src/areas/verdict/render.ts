// The verdict as Markdown: the opening of the living PR comment and the summary of the `Attest evidence`
// check run. Pure; every sentence goes through the comment's escaping, and each row links the turns that
// prove it on the dashboard (/f/{appId}/sessions/{traceId}#turn-N).
import type { Verdict, VerdictRow } from '../../verify/index.js';
import { destination, inline } from '../../codehost/markdown.js';

export interface VerdictView {
  verdict: Verdict;
  flagged: number;
  rows: readonly VerdictRow[];
  policy: { source: string; errors: ReadonlyArray<{ file: string; message: string }> };
}

/** At most this many turn links per row (the rest are on the dashboard). */
const MAX_REFS = 5;

const STATUS: Record<VerdictRow['status'], string> = {
  pass: '✅ pass',
  flag: '⚠️ flag',
  fail: '❌ fail',
  error: '🛑 error',
};

export function verdictHeadline(v: Pick<VerdictView, 'verdict' | 'flagged'>): string {
  switch (v.verdict) {
    case 'clean':
      return 'Clean: every check that counts passed';
    case 'review':
      return `Review: ${v.flagged} ${v.flagged === 1 ? 'row needs' : 'rows need'} a person's look`;
    case 'unverifiable':
      return 'Unverifiable: a failing check fired';
    case 'waiting':
      return 'Waiting: the linked sessions have not all arrived';
    case 'none':
      return 'None: no agent session is linked to this pull request';
  }
}

export function turnUrl(publicUrl: string, appId: string, traceId: string, turnIndex: number): string {
  return (
    `${publicUrl.replace(/\/+$/, '')}/f/${encodeURIComponent(appId)}/sessions/${encodeURIComponent(traceId)}#turn-` +
    `${turnIndex}`
  );
}

/** The verdict line and its rows as Markdown lines (no trailing blank line). */
export function renderVerdict(v: VerdictView, publicUrl: string, appId: string): string[] {
  const lines = [`**Verdict: ${verdictHeadline(v)}**`];
  if (v.rows.length > 0) {
    lines.push('', '| Check | Result | Level | Why | Turns |', '| - | - | - | - | - |');
    for (const r of v.rows) {
      const refs = r.refs.slice(0, MAX_REFS).map((ref) => {
        const url = destination(turnUrl(publicUrl, appId, ref.traceId, ref.turnIndex));
        return url ? `[turn ${ref.turnIndex}](${url})` : `turn ${ref.turnIndex}`;
      });
      if (r.refs.length > MAX_REFS) refs.push(`+${r.refs.length - MAX_REFS}`);
      lines.push(
        `| ${inline(r.validator, 80)} | ${STATUS[r.status]} | ${r.level} | ${inline(r.sentence, 300)} | ` +
          `${refs.join(', ') || '–'} |`,
      );
    }
  }
  lines.push('', `<sub>Policy: ${inline(v.policy.source, 120)}</sub>`);
  return lines;
}
