// RFC 9728 OAuth 2.0 Protected Resource Metadata for the gateway and its MCP endpoints. The document is
// derived from configuration only (no store lookup), so it reveals nothing: a client can compute every
// resource URL itself. The authorization server it names is the gateway itself (ATTEST_PUBLIC_URL); the
// MCP/OAuth area serves that server's RFC 8414 metadata and its endpoints.
import type { Config } from '../../server/config.js';
import { PERMISSIONS } from '../../server/permissions.js';
import type { ProtectedResourceMetadata } from './schema.js';

/**
 * Scopes are the gateway's read permissions: an OAuth token acts with the intersection of its scopes and
 * its user's own permissions, and MCP tools mirror REST reads with the same permissions.
 */
export const OAUTH_SCOPES: readonly string[] = PERMISSIONS.filter((p) => p.endsWith('.read'));

/** `resourcePath` is the path of the protected resource ('' for the gateway as a whole, '/v1/mcp', ...). */
export function protectedResourceMetadata(config: Config, resourcePath: string): ProtectedResourceMetadata {
  return {
    resource: `${config.publicUrl}${resourcePath}`,
    authorization_servers: [config.publicUrl],
    bearer_methods_supported: ['header'],
    scopes_supported: [...OAUTH_SCOPES],
    resource_name: 'Attest gateway',
    resource_documentation: `${config.publicUrl}/v1/openapi.json`,
  };
}

/** The URL of the metadata document for a resource path (what a 401's WWW-Authenticate points at). */
export function protectedResourceMetadataUrl(config: Config, resourcePath: string): string {
  return `${config.publicUrl}/.well-known/oauth-protected-resource${resourcePath}`;
}

/** RFC 8414 metadata of the gateway's authorization server (issuer = ATTEST_PUBLIC_URL). */
export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  const base = config.publicUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...OAUTH_SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/v1/openapi.json`,
  };
}
