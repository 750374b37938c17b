// The consent page of the authorization server. The SDK's authorize handler has validated the client,
// redirect URI and PKCE parameters; the page carries them, signed (HMAC with a key derived from the pepper)
// and short-lived, so the approval posted back cannot be altered. The user approves by presenting their
// login token (olu_) and choosing the factory; nothing is stored until they approve.
import crypto from 'node:crypto';
import type { Gateway } from '../../server/context.js';
import { deriveSecret } from '../../server/pepper.js';

export interface ConsentRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scopes: string[];
  /** The MCP URL the tokens will be bound to; null when the client named none (the factory's URL is used). */
  resource: string | null;
  /** The factory the resource names (/v1/apps/{appId}/mcp), which the user cannot change. */
  appId: string | null;
  expiresAt: number;
}

function key(gateway: Gateway): string {
  return deriveSecret(gateway.pepper, 'oauth-consent');
}

export function signConsentRequest(gateway: Gateway, request: ConsentRequest): string {
  const body = Buffer.from(JSON.stringify(request)).toString('base64url');
  const mac = crypto.createHmac('sha256', key(gateway)).update(body).digest('base64url');
  return `${body}.${mac}`;
}

/** The request a consent form carries, or null when it was altered or has expired. */
export function verifyConsentRequest(gateway: Gateway, signed: string): ConsentRequest | null {
  const [body, mac] = signed.split('.');
  if (!body || !mac) return null;
  const expected = Buffer.from(crypto.createHmac('sha256', key(gateway)).update(body).digest('base64url'));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return null;
  let request: ConsentRequest;
  try {
    request = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ConsentRequest;
  } catch {
    return null;
  }
  return request.expiresAt > gateway.clock.now() ? request : null;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface FactoryChoice {
  id: string;
  label: string;
}

/**
 * `choices`: the factories of the user whose login token was entered (second step when the resource names
 * no factory); `loginToken` is then kept in the form so the user does not type it twice.
 */
const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}' +
  'label{display:block;margin-top:1rem;font-weight:600}' +
  'input{width:100%;padding:.4rem;font:inherit;box-sizing:border-box}.err{color:#b00020}code{font-size:.9em}' +
  'button{margin:1.2rem .6rem 0 0;padding:.5rem 1.2rem;font:inherit}';

export function renderConsentPage(
  request: ConsentRequest,
  signed: string,
  error: string | null,
  step?: { choices: FactoryChoice[]; loginToken: string },
): string {
  let redirectHost: string;
  try {
    redirectHost = new URL(request.redirectUri).host || request.redirectUri;
  } catch {
    redirectHost = request.redirectUri;
  }
  const factory = request.appId
    ? `<input id="app_id" name="app_id" value="${esc(request.appId)}" readonly>`
    : step
      ? `<select id="app_id" name="app_id" required>` +
        `${step.choices.map((c) => `<option value="${esc(c.id)}">${esc(c.label)}</option>`).join('')}</select>`
      : '<input id="app_id" name="app_id" pattern="[0-9a-fA-F-]{36}" placeholder="leave empty to choose from your ' +
        'factories">';
  const asks = ' asks to read data of one Attest factory on your behalf, through';
  const through = request.resource ? `<code>${esc(request.resource)}</code>` : 'the factory&#39;s MCP endpoint';
  const sentBack = ` It will be sent back to <code>${esc(redirectHost)}</code>.`;
  const scopes = ` <code>${request.scopes.map(esc).join('</code>, <code>')}</code>`;
  const tokenValue = step ? ` value="${esc(step.loginToken)}"` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize ${esc(request.clientName)} — Attest</title>
<style>${STYLE}</style>
</head><body>
<h1>Authorize ${esc(request.clientName)}</h1>
<p><strong>${esc(request.clientName)}</strong> (<code>${esc(request.clientId)}</code>)${asks}
${through}.${sentBack}</p>
<p>It may use these permissions, as far as your own role allows:${scopes}.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/oauth/consent">
<input type="hidden" name="request" value="${esc(signed)}">
<label for="login_token">Your login token (olu_…)</label>
<input id="login_token" name="login_token" type="password" autocomplete="off" required${tokenValue}>
<label for="app_id">Factory</label>
${factory}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form>
</body></html>
`;
}
