// The gateway's OAuth 2.1 authorization server behind the MCP SDK's handlers (authorize, token, register,
// revoke): the SDK parses requests, checks PKCE (S256 only) and shapes OAuth errors; this provider keeps
// clients, codes and tokens in the database. Clients are public (PKCE, no secret): dynamically registered
// ones (RFC 7591) are stored, and a client_id that is an https URL is a client ID metadata document,
// fetched when used. Access tokens are credentials of kind oauth_token (olo_), bound to one user, one
// factory and one resource; refresh tokens rotate, and a replayed one revokes its whole grant.
import crypto from 'node:crypto';
import type { Response } from 'express';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
  InvalidTokenError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
  type OAuthTokenRevocationRequest,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Gateway } from '../../server/context.js';
import { digestOf } from '../../server/credentials.js';
import { mintCredential } from '../../server/auth/mint.js';
import { isPermission, type Permission } from '../../server/permissions.js';
import { renderConsentPage, signConsentRequest, type ConsentRequest } from './consent.js';
import { OAUTH_SCOPES } from './service.js';
import * as store from './store.js';
import { fetchMetadataDocument, MetadataFetchRefused, type MetadataFetchOptions } from './metadata-fetch.js';

export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const CODE_TTL_MS = 10 * 60 * 1000;
const METADATA_DOCUMENT_TTL_MS = 5 * 60 * 1000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const APP_RESOURCE = /^\/v1\/apps\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/mcp$/;

const REFRESH_PREFIX = 'olr_';

/** The resources tokens may be issued for: this gateway's MCP endpoints. Null when `url` is none of them. */
export function parseResource(gateway: Gateway, url: string): { resource: string; appId: string | null } | null {
  const base = gateway.config.publicUrl;
  if (!url.toLowerCase().startsWith(base.toLowerCase())) return null;
  const path = url.slice(base.length).toLowerCase().replace(/\/$/, '');
  if (path === '/v1/mcp') return { resource: `${base}/v1/mcp`, appId: null };
  const m = APP_RESOURCE.exec(path);
  return m ? { resource: `${base}${path}`, appId: m[1]! } : null;
}

/** Whether a client ID is a metadata-document URL: https, or http on a loopback host (for development). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.hash || url.username || url.password || url.pathname === '/' || url.pathname === '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
}

/** Redirect URIs OAuth 2.1 allows: https, http on a loopback host, or a private-use scheme of a native app. */
function redirectUriAllowed(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname);
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol); // reverse-domain private-use scheme
}

class ClientsStore implements OAuthRegisteredClientsStore {
  private readonly documents = new Map<string, { at: number; client: OAuthClientInformationFull }>();

  constructor(
    private readonly gateway: Gateway,
    private readonly log: FastifyBaseLogger,
    private readonly fetchOptions: MetadataFetchOptions,
  ) {}

  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isMetadataDocumentUrl(clientId)) return this.fetchDocument(clientId);
    const row = await store.findClient(this.gateway.db, clientId);
    return row
      ? ({ ...(JSON.parse(row.metadata) as object), client_id: row.client_id } as OAuthClientInformationFull)
      : undefined;
  }

  async registerClient(
    info: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    const full = info as OAuthClientInformationFull;
    for (const uri of full.redirect_uris) {
      if (!redirectUriAllowed(uri))
        throw new InvalidClientMetadataError(
          `redirect_uri ${uri} must be https, http on a loopback host, or a private-use scheme`,
        );
    }
    // Every client is public: PKCE protects the code, and no client secret has to be stored in plaintext.
    const { client_secret: _secret, client_secret_expires_at: _expiry, ...rest } = full;
    const client: OAuthClientInformationFull = {
      ...rest,
      client_id: full.client_id ?? crypto.randomUUID(),
      client_id_issued_at: full.client_id_issued_at ?? Math.floor(this.gateway.clock.now() / 1000),
      token_endpoint_auth_method: 'none',
    };
    const { client_id: _id, ...metadata } = client;
    await store.insertClient(this.gateway.db, {
      client_id: client.client_id,
      metadata: JSON.stringify(metadata),
      created_at: this.gateway.clock.now(),
    });
    return client;
  }

  /**
   * A client ID metadata document: fetched from a public https address only, redirects checked hop by hop,
   * 5 s and 64 KiB at most (metadata-fetch.ts), and cached for five minutes. A refusal answers
   * invalid_client with a sentence saying why; the resolved address stays in the gateway's log.
   */
  private async fetchDocument(url: string): Promise<OAuthClientInformationFull | undefined> {
    const now = this.gateway.clock.now();
    const cached = this.documents.get(url);
    if (cached && now - cached.at < METADATA_DOCUMENT_TTL_MS && now >= cached.at) return cached.client;
    let text: string;
    try {
      text = await fetchMetadataDocument(url, this.fetchOptions);
    } catch (err) {
      const refused =
        err instanceof MetadataFetchRefused
          ? err
          : new MetadataFetchRefused(`The client ID metadata document at ${url} could not be fetched.`, String(err));
      this.log.info({ clientId: url.slice(0, 300), reason: refused.detail }, 'client ID metadata document refused');
      throw new InvalidClientError(refused.sentence);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new InvalidClientError(`The client ID metadata document at ${url} is not JSON.`);
    }
    const parsed = OAuthClientMetadataSchema.safeParse(doc);
    if (!parsed.success)
      throw new InvalidClientError(`The client ID metadata document at ${url} is not valid client metadata.`);
    if ((doc as { client_id?: unknown }).client_id !== url)
      throw new InvalidClientError(`The client ID metadata document at ${url} must name its own URL as client_id.`);
    if (!parsed.data.redirect_uris.every(redirectUriAllowed)) {
      throw new InvalidClientError(
        `The client ID metadata document at ${url} names a redirect URI that is not https, http on a loopback host, ` +
          `or a private-use scheme.`,
      );
    }
    const client: OAuthClientInformationFull = { ...parsed.data, client_id: url, token_endpoint_auth_method: 'none' };
    if (this.documents.size > 1000) this.documents.clear();
    this.documents.set(url, { at: now, client });
    return client;
  }
}

export class GatewayOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: ClientsStore;

  constructor(
    private readonly gateway: Gateway,
    log: FastifyBaseLogger,
  ) {
    this.clientsStore = new ClientsStore(gateway, log, { allowPrivate: gateway.config.oauthAllowPrivateMetadata });
  }

  private digest(secret: string): string {
    return digestOf(secret, this.gateway.pepper);
  }

  /** Shows the consent page; the user's approval posts back to /oauth/consent, which issues the code. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    let resource: { resource: string; appId: string | null } | null = null;
    if (params.resource) {
      resource = parseResource(this.gateway, params.resource.href);
      if (!resource)
        throw new InvalidTargetError(
          `resource must be this gateway's MCP endpoint (${this.gateway.config.publicUrl}/v1/mcp or ` +
            `/v1/apps/{appId}/mcp)`,
        );
    }
    const requested = (params.scopes ?? []).filter((s) => s !== '');
    const unknown = requested.filter((s) => !OAUTH_SCOPES.includes(s));
    if (unknown.length) throw new InvalidScopeError(`unknown scope: ${unknown.join(' ')}`);
    const request: ConsentRequest = {
      clientId: client.client_id,
      clientName: client.client_name ?? client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      state: params.state ?? null,
      scopes: requested.length ? requested : [...OAUTH_SCOPES],
      resource: resource?.resource ?? null,
      appId: resource?.appId ?? null,
      expiresAt: this.gateway.clock.now() + CODE_TTL_MS,
    };
    res.status(200).setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    );
    res.end(renderConsentPage(request, signConsentRequest(this.gateway, request), null));
  }

  /**
   * Issues a code for an approved consent: bound to user, factory, client, redirect URI, PKCE challenge and resource.
   */
  async issueCode(request: ConsentRequest, grant: { userId: string; orgId: string; appId: string }): Promise<string> {
    const now = this.gateway.clock.now();
    const grantId = crypto.randomUUID();
    await store.insertGrant(this.gateway.db, {
      id: grantId,
      client_id: request.clientId,
      user_id: grant.userId,
      org_id: grant.orgId,
      app_id: grant.appId,
      resource: request.resource ?? `${this.gateway.config.publicUrl}/v1/apps/${grant.appId}/mcp`,
      scopes: JSON.stringify(request.scopes),
      created_at: now,
      revoked_at: null,
    });
    const code = crypto.randomBytes(32).toString('base64url');
    await store.insertCode(this.gateway.db, {
      digest: this.digest(code),
      grant_id: grantId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      expires_at: now + CODE_TTL_MS,
      used_at: null,
      created_at: now,
    });
    return code;
  }

  private async liveCode(client: OAuthClientInformationFull, code: string) {
    const row = await store.findCode(this.gateway.db, this.digest(code));
    if (!row) throw new InvalidGrantError('Invalid authorization code');
    const grant = await store.findGrant(this.gateway.db, row.grant_id);
    if (!grant || grant.client_id !== client.client_id) throw new InvalidGrantError('Invalid authorization code');
    return { row, grant };
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const { row } = await this.liveCode(client, code);
    return row.code_challenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const { row, grant } = await this.liveCode(client, code);
    const now = this.gateway.clock.now();
    if (!(await store.useCode(this.gateway.db, row.digest, now))) {
      // A replayed code: whoever holds it may have the tokens too; revoke them (OAuth 2.1 §4.1.3).
      await this.revokeGrant(grant.id);
      throw new InvalidGrantError('Authorization code already used');
    }
    if (row.expires_at <= now) throw new InvalidGrantError('Authorization code expired');
    if (grant.revoked_at !== null) throw new InvalidGrantError('Authorization was revoked');
    if (redirectUri !== undefined && redirectUri !== row.redirect_uri)
      throw new InvalidGrantError('redirect_uri does not match the authorization request');
    if (resource && parseResource(this.gateway, resource.href)?.resource !== grant.resource)
      throw new InvalidTargetError('resource does not match the authorization');
    return this.issueTokens(grant, JSON.parse(grant.scopes) as string[]);
  }

  async exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    const row = await store.findRefreshToken(this.gateway.db, this.digest(refreshToken));
    if (!row) throw new InvalidGrantError('Invalid refresh token');
    const grant = await store.findGrant(this.gateway.db, row.grant_id);
    if (!grant || grant.client_id !== client.client_id) throw new InvalidGrantError('Invalid refresh token');
    const now = this.gateway.clock.now();
    if (grant.revoked_at !== null) throw new InvalidGrantError('Authorization was revoked');
    if (row.used_at !== null || !(await store.useRefreshToken(this.gateway.db, row.digest, now))) {
      // Rotation: a refresh token works once. A second use means it leaked; end the whole grant.
      await this.revokeGrant(grant.id);
      throw new InvalidGrantError('Refresh token already used; the authorization is revoked');
    }
    if (row.expires_at <= now) throw new InvalidGrantError('Refresh token expired');
    if (resource && parseResource(this.gateway, resource.href)?.resource !== grant.resource)
      throw new InvalidTargetError('resource does not match the authorization');
    const granted = JSON.parse(grant.scopes) as string[];
    if (scopes?.some((s) => !granted.includes(s)))
      throw new InvalidScopeError('A refresh cannot widen the granted scopes');
    return this.issueTokens(grant, scopes?.length ? scopes : granted);
  }

  private async issueTokens(grant: store.OAuthGrantsTable, scopes: string[]): Promise<OAuthTokens> {
    const now = this.gateway.clock.now();
    const client = await this.clientsStore.getClient(grant.client_id);
    const access = await mintCredential(this.gateway.db, this.gateway.pepper, now, {
      kind: 'oauth_token',
      name: `OAuth: ${(client?.client_name ?? grant.client_id).slice(0, 200)}`,
      orgId: grant.org_id,
      appId: grant.app_id,
      userId: grant.user_id,
      permissions: scopes.filter(isPermission) as Permission[],
      expiresAt: now + ACCESS_TOKEN_TTL_MS,
      audience: grant.resource,
    });
    await store.linkAccessToken(this.gateway.db, access.id, grant.id);
    const refresh = REFRESH_PREFIX + crypto.randomBytes(32).toString('base64url');
    await store.insertRefreshToken(this.gateway.db, {
      digest: this.digest(refresh),
      grant_id: grant.id,
      expires_at: now + REFRESH_TOKEN_TTL_MS,
      used_at: null,
      created_at: now,
    });
    // A replay seen by a concurrent request may have revoked the grant while these were minted; the
    // revocation covers only tokens linked before it, so look again now that these are linked.
    if ((await store.findGrant(this.gateway.db, grant.id))?.revoked_at != null) {
      await this.revokeGrant(grant.id);
      throw new InvalidGrantError('Authorization was revoked');
    }
    return {
      access_token: access.plaintext,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_MS / 1000,
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  }

  /** Required by the SDK's interface; the gateway's guard is what checks tokens on its routes. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const row = await store.findAccessToken(this.gateway.db, this.digest(token));
    const now = this.gateway.clock.now();
    if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now))
      throw new InvalidTokenError('Invalid access token');
    const grant = await store.findGrant(this.gateway.db, row.grantId);
    if (!grant) throw new InvalidTokenError('Invalid access token');
    return {
      token,
      clientId: grant.client_id,
      scopes: JSON.parse(row.permissions) as string[],
      ...(row.expiresAt !== null ? { expiresAt: Math.floor(row.expiresAt / 1000) } : {}),
      ...(row.audience ? { resource: new URL(row.audience) } : {}),
    };
  }

  /** RFC 7009: an access token stops; a refresh token ends its grant. Unknown tokens or another client's: no-op. */
  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    const digest = this.digest(request.token);
    const now = this.gateway.clock.now();
    const access = await store.findAccessToken(this.gateway.db, digest);
    if (access) {
      const grant = await store.findGrant(this.gateway.db, access.grantId);
      if (grant?.client_id !== client.client_id) return;
      await store.revokeAccessToken(this.gateway.db, access.id, now);
      this.gateway.auth.invalidate();
      return;
    }
    const refresh = await store.findRefreshToken(this.gateway.db, digest);
    if (refresh) {
      const grant = await store.findGrant(this.gateway.db, refresh.grant_id);
      if (grant?.client_id !== client.client_id) return;
      await this.revokeGrant(grant.id);
    }
  }

  private async revokeGrant(grantId: string): Promise<void> {
    await store.revokeGrant(this.gateway.db, grantId, this.gateway.clock.now());
    this.gateway.auth.invalidate();
  }
}
