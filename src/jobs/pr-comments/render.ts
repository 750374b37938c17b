// The body of the living PR comment: Markdown, at most 65,536 characters, every user-provided text
// escaped so it can never become a link, an image, a mention, a reference or HTML. Pure: the worker
// gathers the data from the services and hands it here.
import { renderVerdict, type VerdictView } from '../../areas/verdict/render.js';
import { destination, inline } from '../../codehost/markdown.js';

export { destination, inline };

/** GitHub refuses a comment body longer than this. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export function markerOf(appId: string): string {
  return `<!-- attest:pr-comment factory=${appId} -->`;
}

export interface CommentArtifact {
  id: string;
  kind: string;
  caption: string;
  filename: string;
  criterionId: string | null;
  pageUrl: string;
  /** A signed URL of the bytes, for screenshots only. */
  imageUrl: string | null;
}

export interface CommentCheck {
  name: string;
  result: 'pass' | 'fail';
  link: string;
  emittedAt: string;
}

export interface CommentCriterion {
  workItemNumber: number;
  id: string;
  text: string;
  /** Live artifacts of the pull request that name this criterion. */
  provenBy: readonly string[];
}

export interface CommentFinding {
  severity: string;
  title: string;
  source: string;
  path: string | null;
  line: number | null;
}

/** A session linked to the pull request, as the comment lists it. */
export interface CommentSession {
  /** The stored title (the sender's, or the one derived at ingest); an id is never shown in its place. */
  title: string | null;
  /** The session's dashboard page. */
  pageUrl: string;
  costUsd: number;
  costStatus: 'complete' | 'partial' | 'unpriced';
}

export interface CommentData {
  appId: string;
  dashboardUrl: string;
  /**
   * The verdict the comment opens with (issue 39), and the public URL its turn links start with; absent = none shown.
   */
  verdict?: { view: VerdictView; publicUrl: string } | null;
  sessions: {
    count: number;
    agentTypes: ReadonlyArray<{ agentType: string; count: number }>;
    costUsd: number;
    /** Whether the cost is whole (the PR route's costStatus), and the models that had no price. */
    costStatus: 'complete' | 'partial' | 'unpriced';
    unpricedModels: readonly string[];
    /** The sessions in the PR read's order (oldest first); the first MAX_SESSIONS are listed. */
    list: readonly CommentSession[];
  };
  artifacts: readonly CommentArtifact[];
  checks: readonly CommentCheck[];
  criteria: readonly CommentCriterion[];
  findings: readonly CommentFinding[];
}

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info'];
/** Screenshots shown as images (the rest are linked from the table). */
const MAX_IMAGES = 12;
/** Sessions listed by title; the rest are counted and left to the dashboard's PR page. */
export const MAX_SESSIONS = 10;
/** A title is at most 80 characters when derived (src/areas/sessions/title.ts); a sent one is cut here. */
const SESSION_TITLE_CHARS = 100;

/** The dashboard page of one session, as the verdict rows link a turn (src/areas/verdict/render.ts). */
export function sessionPageUrl(publicUrl: string, appId: string, traceId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/f/${encodeURIComponent(appId)}/sessions/${encodeURIComponent(traceId)}`;
}

function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

function link(text: string, url: string | null): string {
  const dest = url === null ? null : destination(url);
  return dest ? `[${text}](${dest})` : text;
}

/** Whether the pull request has anything the comment would show. */
export function hasEvidence(d: CommentData): boolean {
  return (
    d.sessions.count > 0 ||
    d.artifacts.length > 0 ||
    d.checks.length > 0 ||
    d.criteria.length > 0 ||
    d.findings.length > 0
  );
}

export function verdictOf(d: CommentData): {
  proven: number;
  criteria: number;
  passing: number;
  checks: number;
  highOrCritical: number;
} {
  return {
    proven: d.criteria.filter((c) => c.provenBy.length > 0).length,
    criteria: d.criteria.length,
    passing: d.checks.filter((c) => c.result === 'pass').length,
    checks: d.checks.length,
    highOrCritical: d.findings.filter((f) => f.severity === 'high' || f.severity === 'critical').length,
  };
}

/** The whole body; cut at a line with a "see the dashboard" link when longer than `limit`. */
export function renderComment(d: CommentData, limit = GITHUB_COMMENT_LIMIT): string {
  const v = verdictOf(d);
  const head: string[] = [markerOf(d.appId), '### Attest evidence', ''];
  if (d.verdict) head.push(...renderVerdict(d.verdict.view, d.verdict.publicUrl, d.appId), '');
  head.push(
    `**Criteria proven: ${v.proven} of ${v.criteria}** · **Checks passing: ${v.passing} of ${v.checks}** · ` +
      `**Open high or critical findings: ${v.highOrCritical}**`,
    '',
  );
  const agents = d.sessions.agentTypes.map((a) => `${inline(a.agentType, 60)} ×${a.count}`).join(', ');
  // A sum with sessions the price list could not price is not the PR's cost: say so, and which models.
  const noPrice = d.sessions.unpricedModels.length
    ? `no price for ${d.sessions.unpricedModels
        .slice(0, 5)
        .map((m) => inline(m, 60))
        .join(', ')}${d.sessions.unpricedModels.length > 5 ? ', …' : ''}`
    : 'no price';
  const cost =
    d.sessions.costStatus === 'complete'
      ? usd(d.sessions.costUsd)
      : d.sessions.costStatus === 'partial'
        ? `${usd(d.sessions.costUsd)} (partial: ${noPrice})`
        : `unknown (${noPrice})`;
  head.push(
    `**Sessions:** ${d.sessions.count}${agents ? ` (${agents})` : ''} · total cost ${cost} · ` +
      `${link('PR page on the Attest dashboard', d.dashboardUrl)}`,
  );
  // Each session by its title, linked to its page, with its own cost: an unpriced one has no dollar figure.
  // Capped, so a PR with hundreds of sessions keeps the comment within GitHub's limit.
  if (d.sessions.list.length > 0) head.push('');
  for (const s of d.sessions.list.slice(0, MAX_SESSIONS)) {
    const own =
      s.costStatus === 'complete'
        ? usd(s.costUsd)
        : s.costStatus === 'partial'
          ? `${usd(s.costUsd)} (partial)`
          : 'unpriced';
    head.push(`- ${link(s.title ? inline(s.title, SESSION_TITLE_CHARS) : 'untitled session', s.pageUrl)} · ${own}`);
  }
  const more = d.sessions.list.length - MAX_SESSIONS;
  if (more > 0) head.push(`- +${more} more on the ${link('PR page', d.dashboardUrl)}`);
  head.push('');

  const body: string[] = [];
  if (d.artifacts.length > 0) {
    body.push(`#### Artifacts (${d.artifacts.length})`, '', '| Kind | Caption | Proves |', '| - | - | - |');
    for (const a of d.artifacts) {
      const caption = inline(a.caption || a.filename, 200);
      body.push(
        `| ${link(inline(a.kind, 20), a.pageUrl)} | ${caption} | ${a.criterionId ? inline(a.criterionId, 100) : '–'} |`,
      );
    }
    body.push('');
    const images = d.artifacts.filter((a) => a.imageUrl !== null).slice(0, MAX_IMAGES);
    for (const [i, a] of images.entries()) {
      const src = destination(a.imageUrl!);
      const page = destination(a.pageUrl);
      if (src && page) body.push(`[![screenshot ${i + 1}](${src})](${page})`);
    }
    if (images.length > 0) body.push('');
  }
  if (d.checks.length > 0) {
    body.push(`#### Checks (${d.checks.length}, latest first)`, '', '| Check | Result | Run |', '| - | - | - |');
    for (const c of d.checks)
      body.push(`| ${inline(c.name, 120)} | ${c.result === 'pass' ? '✅ pass' : '❌ fail'} | ${link('run', c.link)} |`);
    body.push('');
  }
  if (d.criteria.length > 0) {
    body.push(`#### Acceptance criteria (${v.proven} of ${v.criteria} proven)`, '');
    const byId = new Map(d.artifacts.map((a) => [a.id, a]));
    for (const c of d.criteria) {
      const proofs = c.provenBy.map((id, i) => link(`proof ${i + 1}`, byId.get(id)?.pageUrl ?? null)).join(', ');
      body.push(
        `- [${c.provenBy.length > 0 ? 'x' : ' '}] ${inline(c.text, 300)} (item ${c.workItemNumber}, ` +
          `${inline(c.id, 100)})${proofs ? ` — ${proofs}` : ''}`,
      );
    }
    body.push('');
  }
  if (d.findings.length > 0) {
    body.push(`#### Findings (${d.findings.length})`, '');
    const sorted = [...d.findings].sort((a, b) => rank(a.severity) - rank(b.severity));
    for (const f of sorted) {
      const where = f.path ? ` · ${inline(f.path, 200)}${f.line !== null ? `:${f.line}` : ''}` : '';
      body.push(`- **${inline(f.severity, 20)}** ${inline(f.title, 300)} (${inline(f.source, 80)}${where})`);
    }
    body.push('');
  }
  const foot = [`<sub>Kept up to date by Attest. ${link('See the dashboard', d.dashboardUrl)} for everything.</sub>`];

  const full = [...head, ...body, ...foot].join('\n');
  if (full.length <= limit) return full;
  const cut =
    `… cut here: the evidence is longer than a GitHub comment holds. ${link('See the dashboard', d.dashboardUrl)} ` +
    `for the rest.`;
  const lines: string[] = [...head];
  let size = lines.join('\n').length + 1 + cut.length + 1 + foot.join('\n').length + 2;
  for (const line of body) {
    if (size + line.length + 1 > limit) break;
    lines.push(line);
    size += line.length + 1;
  }
  return [...lines, '', cut, ...foot].join('\n');
}

function rank(severity: string): number {
  const i = SEVERITY_ORDER.indexOf(severity);
  return i < 0 ? SEVERITY_ORDER.length : i;
}
