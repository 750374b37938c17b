// The OAuth area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';

export const ProtectedResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'The protected resource URL this document describes.' }),
    authorization_servers: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  { description: 'RFC 9728 OAuth 2.0 Protected Resource Metadata (bare JSON, not in `data`).' },
);
export type ProtectedResourceMetadata = Static<typeof ProtectedResourceMetadata>;
