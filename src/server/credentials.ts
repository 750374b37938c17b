// Credential plaintexts (API.md §2): a kind prefix, 36 random base62 characters and a 6-character base62
// CRC32 of everything before it. The checksum lets the gateway refuse a mistyped or forged credential
// before it touches the store; only an HMAC-SHA256 digest (keyed with the pepper) is ever stored.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { CredentialKind } from '../db/schema.js';

export const CREDENTIAL_PREFIXES: Readonly<Record<CredentialKind, string>> = {
  factory_key: 'sk_outerlayer_',
  login_token: 'olu_',
  management_key: 'olk_',
  item_key: 'oli_',
  admin_token: 'ola_',
  /** OAuth 2.1 access token for MCP connector clients, bound to one resource (audience). */
  oauth_token: 'olo_',
  /** Dashboard session id, carried only in the attest_session cookie (never accepted as a bearer). */
  dashboard_session: 'ols_',
};

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 36;
const CHECKSUM_LENGTH = 6;

function base62(n: number, width: number): string {
  let out = '';
  let rest = n;
  while (rest > 0) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly likely.
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

function checksum(text: string): string {
  return base62(zlib.crc32(text) >>> 0, CHECKSUM_LENGTH);
}

export function mintPlaintext(kind: CredentialKind): string {
  const head = CREDENTIAL_PREFIXES[kind] + randomBase62(BODY_LENGTH);
  return head + checksum(head);
}

const PREFIX_ENTRIES = Object.entries(CREDENTIAL_PREFIXES) as [CredentialKind, string][];

/** The kind a plaintext claims to be, or null when its shape or checksum is wrong. */
export function parsePlaintext(plaintext: string): CredentialKind | null {
  for (const [kind, prefix] of PREFIX_ENTRIES) {
    if (!plaintext.startsWith(prefix)) continue;
    if (plaintext.length !== prefix.length + BODY_LENGTH + CHECKSUM_LENGTH) return null;
    const head = plaintext.slice(0, -CHECKSUM_LENGTH);
    if (!/^[0-9A-Za-z]+$/.test(plaintext.slice(prefix.length))) return null;
    // A plain comparison: the checksum is a CRC anyone can compute, so its timing gives nothing away.
    return checksum(head) === plaintext.slice(-CHECKSUM_LENGTH) ? kind : null;
  }
  return null;
}

export function digestOf(plaintext: string, pepper: string): string {
  return crypto.createHmac('sha256', pepper).update(plaintext).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && crypto.timingSafeEqual(ba, bb);
}

/** What may be shown of a credential after creation. */
export function displayPrefix(plaintext: string, kind: CredentialKind): string {
  return plaintext.slice(0, CREDENTIAL_PREFIXES[kind].length + 4);
}
