// What a channel is sent for an event: a webhook gets the event's JSON, signed; a Slack incoming webhook gets
// the event as Slack blocks (https://api.slack.com/block-kit), with `text` as the notification's fallback.
import crypto from 'node:crypto';
import type {
  BudgetNoticeData,
  ClaimExpiredData,
  HostOfflineData,
  NotificationEvent,
  PrVerdictData,
  SessionFailedSyncData,
} from './schema.js';

/** `X-Attest-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (API.md §11). */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export interface OutboundRequest {
  body: string;
  headers: Record<string, string>;
}

export function webhookRequest(event: NotificationEvent, secret: string, nowMs: number): OutboundRequest {
  const body = JSON.stringify(event);
  const t = Math.floor(nowMs / 1000);
  return {
    body,
    headers: {
      'x-attest-signature': signatureHeader(secret, t, body),
      'x-attest-event': event.type,
      'x-attest-event-id': event.id,
    },
  };
}

const usd = (n: number) => `$${n.toFixed(2)}`;

function budgetText(event: NotificationEvent, d: BudgetNoticeData): string {
  if (event.type === 'budget.forecast')
    return (
      `Budget "${d.budget.name}" is projected to reach ${usd(d.forecastUsd ?? 0)} of ${usd(d.budget.amountUsd)} ` +
      `this ${d.budget.period} (a projection from ${usd(d.spendUsd)} spent so far).`
    );
  return (
    `Budget "${d.budget.name}" passed ${d.threshold}%: ${usd(d.spendUsd)} of ${usd(d.budget.amountUsd)} this ` +
    `${d.budget.period}.`
  );
}

function isBudget(event: NotificationEvent): event is NotificationEvent & { data: BudgetNoticeData } {
  return event.type === 'budget.threshold' || event.type === 'budget.forecast';
}

/** The sentence and link of an event other than a budget's notice (null for a test event). */
function otherText(event: NotificationEvent): { title: string; text: string; url: string | null } | null {
  switch (event.type) {
    case 'pr.verdict': {
      const d = event.data as PrVerdictData;
      const was = d.previousVerdict === null ? '' : ` (was ${d.previousVerdict})`;
      return {
        title: 'Pull request verdict',
        text: `${d.repository}#${d.number}${d.title ? ` "${d.title}"` : ''} is now ${d.verdict}${was}.`,
        url: d.url,
      };
    }
    case 'session.failed_sync': {
      const d = event.data as SessionFailedSyncData;
      return {
        title: 'Session refused',
        text: `A session of ${d.actorName}${d.sessionId ? ` (${d.sessionId})` : ''} was refused: ${d.reason}`,
        url: null,
      };
    }
    case 'host.offline': {
      const d = event.data as HostOfflineData;
      return {
        title: 'Host offline',
        text: `Host "${d.name}" has not been heard from since ${d.lastHeartbeatAt}.`,
        url: d.url,
      };
    }
    case 'work_item.claim_expired': {
      const d = event.data as ClaimExpiredData;
      return {
        title: 'Claim expired',
        text:
          `The claim of work item #${d.workItem.number} "${d.workItem.title}" by ${d.claim.source} ` +
          `ran out at ${d.claim.expiresAt} without being released.`,
        url: d.url,
      };
    }
    default:
      return null;
  }
}

/** The Slack message: a header, the sentence, and for budgets the top sessions and actors by cost. */
export function slackRequest(event: NotificationEvent): OutboundRequest {
  let text: string;
  const blocks: unknown[] = [];
  if (isBudget(event)) {
    const d = event.data;
    text = budgetText(event, d);
    blocks.push(
      {
        type: 'header',
        text: { type: 'plain_text', text: event.type === 'budget.forecast' ? 'Budget forecast' : 'Budget threshold' },
      },
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Spent*\n${usd(d.spendUsd)}` },
          { type: 'mrkdwn', text: `*Budget*\n${usd(d.budget.amountUsd)} a ${d.budget.period}` },
        ],
      },
    );
    if (d.topSessions.length > 0)
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            `*Top sessions*\n` +
            `${d.topSessions.map((s) => `• ${s.title ?? s.traceId} (${s.actorName}): ${usd(s.costUsd)}`).join('\n')}`,
        },
      });
    if (d.topActors.length > 0)
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `*Top actors*\n${d.topActors.map((a) => `• ${a.actorName}: ${usd(a.costUsd)}`).join('\n')}`,
        },
      });
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${d.url}|Open the budget in Attest>` }] });
  } else {
    const other = otherText(event);
    text = other ? other.text : (event.data as { message: string }).message;
    if (other) blocks.push({ type: 'header', text: { type: 'plain_text', text: other.title } });
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
    if (other?.url)
      blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `<${other.url}|Open in Attest>` }] });
  }
  return { body: JSON.stringify({ text, blocks }), headers: {} };
}

/** The webhook secret at rest: AES-256-GCM under a key derived from the gateway's pepper. */
export function sealSecret(key: string, secret: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', Buffer.from(key, 'hex'), iv);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`;
}

export function openSecret(key: string, sealed: string): string {
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', Buffer.from(key, 'hex'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
