// The account's contract: the login tokens a person holds (the CLI's, and the ones behind dashboard sessions).
import { Type, type Static } from 'typebox';

export const MyLoginToken = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    /** `attest login (<machine>)`, `sign-in (oidc)`, `login <email>` (minted by the operator), ... */
    name: Type.String(),
    /** The token's first characters, to tell it apart (`olu_ab12…`). */
    prefix: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    /** Its last use, or its dashboard sessions' (to the minute); null when never used. */
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    /** The token this request is made with (or that signed this dashboard session in). */
    current: Type.Boolean(),
  },
  { $id: 'MyLoginToken' },
);
export type MyLoginToken = Static<typeof MyLoginToken>;
