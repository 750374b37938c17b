// Builders shared by the artifact tests: a valid POST /v1/artifacts body for some bytes, and narrow keys.
import crypto from 'node:crypto';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';

export function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export interface ArtifactFields {
  clientArtifactId?: string;
  filename?: string;
  mediaType?: string;
  bytes?: number;
  sha256?: string;
  caption?: string;
  criterionId?: string;
  emittedAt?: string;
  prNumber?: number;
  repository?: string;
  workItemId?: string;
  supersedes?: string;
  session?: { sessionId: string; turnIndex?: number };
}

/** A body anchored to acme/api#7 unless `fields` (or `unanchored`) says otherwise. */
export function artifactBody(content: Buffer, fields: ArtifactFields = {}, opts: { unanchored?: boolean } = {}) {
  const anchor = opts.unanchored ? {} : { repository: 'acme/api', prNumber: 7 };
  return {
    schemaVersion: 1,
    artifact: {
      clientArtifactId: crypto.randomUUID(),
      filename: 'shot.png',
      mediaType: 'image/png',
      bytes: content.length,
      sha256: sha256(content),
      caption: 'the login page after the fix',
      emittedAt: '2026-11-01T12:00:00.000Z',
      ...anchor,
      ...fields,
    },
    blob: { data: content.toString('base64') },
  };
}

/** A factory key of the tenant with exactly these permissions. */
export async function keyWith(gw: TestGateway, t: Tenant, permissions: string[]): Promise<string> {
  const res = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `k-${crypto.randomUUID()}`, permissions },
  });
  if (res.status !== 201) throw new Error(`mint key: ${res.status} ${res.text}`);
  return res.body.data.plaintext_key as string;
}

/** An ISO instant `minutes` after 2026-11-01T12:00Z. */
export function at(minutes: number): string {
  return new Date(Date.parse('2026-11-01T12:00:00Z') + minutes * 60_000).toISOString();
}
