// Credential plaintexts: format, checksum, digest (API.md §2).
import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_PREFIXES,
  digestOf,
  digestsEqual,
  mintPlaintext,
  parsePlaintext,
} from '../../src/server/credentials.js';
import type { CredentialKind } from '../../src/db/schema.js';

const KINDS = Object.keys(CREDENTIAL_PREFIXES) as CredentialKind[];

describe('credential plaintexts', () => {
  it.each(KINDS)('%s: prefix, 36 base62 characters and a 6-character checksum', (kind) => {
    const plaintext = mintPlaintext(kind);
    const prefix = CREDENTIAL_PREFIXES[kind];
    expect(plaintext.startsWith(prefix)).toBe(true);
    expect(plaintext).toHaveLength(prefix.length + 36 + 6);
    expect(plaintext.slice(prefix.length)).toMatch(/^[0-9A-Za-z]{42}$/);
    expect(parsePlaintext(plaintext)).toBe(kind);
  });

  it('uses the published prefixes', () => {
    expect(CREDENTIAL_PREFIXES).toEqual({
      factory_key: 'sk_outerlayer_',
      login_token: 'olu_',
      management_key: 'olk_',
      item_key: 'oli_',
      admin_token: 'ola_',
      oauth_token: 'olo_',
      dashboard_session: 'ols_',
    });
  });

  it('refuses a plaintext with one character changed, truncated, extended or of an unknown prefix', () => {
    const plaintext = mintPlaintext('factory_key');
    const i = 20;
    const flipped = plaintext.slice(0, i) + (plaintext[i] === 'a' ? 'b' : 'a') + plaintext.slice(i + 1);
    expect(parsePlaintext(flipped)).toBeNull();
    expect(parsePlaintext(plaintext.slice(0, -1))).toBeNull();
    expect(parsePlaintext(`${plaintext}x`)).toBeNull();
    expect(parsePlaintext(`xx_${plaintext.slice(3)}`)).toBeNull();
    expect(parsePlaintext(`${plaintext.slice(0, -6)}!!!!!!`)).toBeNull();
  });

  it('mints different plaintexts every time', () => {
    const seen = new Set(Array.from({ length: 200 }, () => mintPlaintext('login_token')));
    expect(seen.size).toBe(200);
  });

  it('digests with the pepper: same input and pepper match, another pepper does not', () => {
    const plaintext = mintPlaintext('item_key');
    const a = digestOf(plaintext, 'pepper-one');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(digestsEqual(a, digestOf(plaintext, 'pepper-one'))).toBe(true);
    expect(digestsEqual(a, digestOf(plaintext, 'pepper-two'))).toBe(false);
    expect(a).not.toContain(plaintext.slice(4, 20));
  });
});
