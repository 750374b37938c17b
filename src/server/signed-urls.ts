// Signed, expiring URLs for an artifact's bytes (GET /v1/artifacts/{id}/content?appId=&exp=&sig=), for
// readers that cannot send a credential: GitHub's image proxy fetching a screenshot of the PR comment.
//
// sig = base64url(HMAC-SHA256(key, "artifact-content\n{appId}\n{artifactId}\n{exp}")), the key derived from
// the gateway's pepper (replicas share the pepper, so any replica verifies what another signed). The
// signature names one artifact of one factory: it opens nothing else. `exp` is in Unix seconds.
//
// Validity: 7 to 8 days. The expiry is rounded up to the next whole UTC day past 7 days, so every render of
// a comment within one day produces the same URL (an unchanged comment is not edited again), and a URL
// copied out of a comment stops working within 8 days. Seven days covers a typical review; the comment
// worker re-renders the comment of an open pull request a day before its images expire.
import crypto from 'node:crypto';
import { deriveSecret } from './pepper.js';

export const SIGNED_URL_MIN_VALIDITY_S = 7 * 24 * 3600;
const DAY_S = 24 * 3600;
/** The longest validity a signature may claim (anything later was not minted by this gateway). */
export const SIGNED_URL_MAX_VALIDITY_S = SIGNED_URL_MIN_VALIDITY_S + DAY_S;

function keyOf(pepper: string): string {
  return deriveSecret(pepper, 'signed-artifact-urls');
}

function mac(pepper: string, appId: string, artifactId: string, exp: number): string {
  return crypto
    .createHmac('sha256', keyOf(pepper))
    .update(`artifact-content\n${appId}\n${artifactId}\n${exp}`)
    .digest('base64url');
}

/** The expiry (Unix seconds) of a URL signed at `nowMs`. */
export function signedUrlExpiry(nowMs: number): number {
  return Math.ceil((Math.floor(nowMs / 1000) + SIGNED_URL_MIN_VALIDITY_S) / DAY_S) * DAY_S;
}

/** `{publicUrl}/v1/artifacts/{id}/content?appId=...&exp=...&sig=...`. */
export function signArtifactContentUrl(
  publicUrl: string,
  pepper: string,
  appId: string,
  artifactId: string,
  nowMs: number,
): { url: string; exp: number } {
  const exp = signedUrlExpiry(nowMs);
  const query = new URLSearchParams({ appId, exp: String(exp), sig: mac(pepper, appId, artifactId, exp) });
  return { url: `${publicUrl.replace(/\/+$/, '')}/v1/artifacts/${artifactId}/content?${query.toString()}`, exp };
}

export type SignatureCheck =
  | { ok: true; appId: string; exp: number }
  | { ok: false; reason: 'malformed' | 'expired' | 'too_long' | 'mismatch' };

/** Whether `sig` was minted by this gateway for this artifact of `appId`, and is still valid at `nowMs`. */
export function verifyArtifactContentSignature(
  pepper: string,
  artifactId: string,
  query: { appId?: unknown; exp?: unknown; sig?: unknown },
  nowMs: number,
): SignatureCheck {
  const { appId, exp, sig } = query;
  if (typeof appId !== 'string' || typeof exp !== 'string' || typeof sig !== 'string')
    return { ok: false, reason: 'malformed' };
  if (!/^[0-9a-f-]{36}$/i.test(appId) || !/^\d{1,12}$/.test(exp) || !/^[A-Za-z0-9_-]{43}$/.test(sig))
    return { ok: false, reason: 'malformed' };
  const expS = Number(exp);
  const nowS = nowMs / 1000;
  if (expS <= nowS) return { ok: false, reason: 'expired' };
  if (expS - nowS > SIGNED_URL_MAX_VALIDITY_S) return { ok: false, reason: 'too_long' };
  const expected = Buffer.from(mac(pepper, appId.toLowerCase(), artifactId.toLowerCase(), expS));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
    return { ok: false, reason: 'mismatch' };
  return { ok: true, appId: appId.toLowerCase(), exp: expS };
}
