// GitHub webhooks: verify X-Hub-Signature-256 over the exact bytes received, then turn pull_request and
// check_suite/check_run deliveries into PR state for every factory that connected the repository.
import crypto from 'node:crypto';
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { applyCheck, applyPullRequest, type FactoryRef, type PullRequestFact } from '../prs/state.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import { factoriesForRepository } from './factories.js';

export interface WebhookResult {
  event: string;
  action: string | null;
  /** Whether this kind of delivery changes anything here (others are acknowledged and dropped). */
  handled: boolean;
  repository: string | null;
  /** How many factories (connected to the repository) the delivery was applied to. */
  factories: number;
}

const HANDLED_EVENTS = new Set(['pull_request', 'check_suite', 'check_run']);

/** HMAC-SHA256 of the body with the webhook secret, compared in constant time. */
export function verifySignature(secret: string | null, body: Buffer, header: string | undefined): boolean {
  if (!secret || !header) return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match?.[1]) return false;
  const expected = crypto.createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(match[1].toLowerCase(), 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
}
function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
function instant(v: unknown): number | null {
  const s = str(v);
  if (!s) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

function invalid(message: string) {
  return apiError('invalid_request_body', message, { details: [{ path: '(root)', message }] });
}

/** The payload of a delivery: JSON, or GitHub's form encoding (`payload=<json>`). */
export function parsePayload(body: Buffer, contentType: string | undefined): Json {
  let text = body.toString('utf8');
  if ((contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    text = new URLSearchParams(text).get('payload') ?? '';
  }
  try {
    const parsed = obj(JSON.parse(text));
    if (parsed) return parsed;
  } catch {
    // fall through
  }
  throw apiError('invalid_json', 'The webhook payload is not a JSON object.');
}

function pullRequestFact(repository: string, pr: Json): PullRequestFact {
  const number = num(pr.number);
  const head = obj(pr.head);
  const base = obj(pr.base);
  const createdAt = instant(pr.created_at);
  if (number === null || !head || !base || createdAt === null)
    throw invalid('pull_request is missing number, head, base or created_at.');
  const merged = pr.merged === true || instant(pr.merged_at) !== null;
  return {
    repository,
    number,
    url: str(pr.html_url) ?? `https://github.com/${repository}/pull/${number}`,
    title: str(pr.title) ?? '',
    body: str(pr.body),
    author: str(obj(pr.user)?.login),
    headBranch: str(head.ref) ?? '',
    headSha: str(head.sha) ?? '',
    baseBranch: str(base.ref) ?? '',
    baseSha: str(base.sha),
    open: pr.state === 'open',
    merged,
    createdAt,
    closedAt: instant(pr.closed_at),
    mergedAt: instant(pr.merged_at),
    updatedAt: instant(pr.updated_at) ?? createdAt,
  };
}

async function applyToFactories(
  factories: readonly FactoryRef[],
  apply: (f: FactoryRef) => Promise<unknown>,
): Promise<void> {
  for (const f of factories) await apply(f);
}

export interface Delivery {
  event: string | undefined;
  signature: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

export async function handleGithubDelivery(ctx: RequestContext, delivery: Delivery): Promise<WebhookResult> {
  if (!verifySignature(ctx.config.github.webhookSecret, delivery.body, delivery.signature)) {
    throw apiError(
      'invalid_signature',
      ctx.config.github.webhookSecret
        ? 'X-Hub-Signature-256 does not match the payload.'
        : 'This gateway has no webhook secret configured (GITHUB_WEBHOOK_SECRET).',
    );
  }
  const event = delivery.event ?? '';
  if (!event)
    throw apiError('invalid_request_body', 'X-GitHub-Event is required.', {
      details: [{ path: 'X-GitHub-Event', message: 'is required' }],
    });
  const payload = parsePayload(delivery.body, delivery.contentType);
  const action = str(payload.action);
  const repo = obj(payload.repository);
  const repository = str(repo?.full_name);
  const result: WebhookResult = { event, action, handled: false, repository, factories: 0 };
  if (!HANDLED_EVENTS.has(event) || !repository) return result;

  const installationId = num(obj(payload.installation)?.id);
  const factories = await factoriesForRepository(ctx, repository, installationId);
  result.handled = true;
  result.factories = factories.length;

  if (event === 'pull_request') {
    const pr = obj(payload.pull_request);
    if (!pr) throw invalid('pull_request event without pull_request.');
    const fact = pullRequestFact(repository, pr);
    await applyToFactories(factories, async (f) => {
      await applyPullRequest(ctx, f, fact);
      // Whatever the comment settings: the PR's job reads its commits, which link the sessions that made one.
      await schedulePrComments(ctx, f.appId, [{ repository, number: fact.number }], { whateverTheSettings: true });
    });
    return result;
  }

  const kind = event === 'check_suite' ? 'suite' : 'run';
  const check = obj(payload[event]);
  const id = num(check?.id);
  const headSha = str(check?.head_sha);
  if (!check || id === null || !headSha) throw invalid(`${event} event without ${event}.id or head_sha.`);
  const name =
    kind === 'suite'
      ? (str(obj(check.app)?.slug) ?? str(obj(check.app)?.name) ?? 'check suite')
      : (str(check.name) ?? 'check run');
  const fact = {
    repository,
    kind,
    id: String(id),
    headSha,
    name,
    status: str(check.status) ?? 'queued',
    conclusion: str(check.conclusion),
  } as const;
  await applyToFactories(factories, (f) => applyCheck(ctx, f, fact));
  return result;
}
