// The identity sign-in's contract: which providers the sign-in page offers.
import { Type, type Static } from 'typebox';
import { Literals } from '../../server/schemas.js';

export const SignInProvider = Type.Object(
  {
    id: Literals(['oidc', 'github']),
    /** The button's label. */
    name: Type.String(),
    /** Where the button goes (GET; add `?invite=<token>` to join an org once signed in). */
    url: Type.String(),
  },
  { $id: 'SignInProvider' },
);
export type SignInProvider = Static<typeof SignInProvider>;

// ---- `attest login` through the browser ----

/** Names the CLI on the confirmation pages (the machine it runs on); shown, never trusted. */
const ClientName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });
/** A PKCE code verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
const CodeVerifier = Type.String({ minLength: 43, maxLength: 128, pattern: '^[A-Za-z0-9._~-]+$' });

export const NewCliLoginCode = Type.Object(
  {
    /** Exactly `http://127.0.0.1:<port>/<path>`: where the CLI listens for the code. */
    redirectUri: Type.String({ minLength: 1, maxLength: 200 }),
    /** BASE64URL(SHA-256(code_verifier)), without padding. */
    codeChallenge: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' }),
    codeChallengeMethod: Type.Literal('S256'),
    /** The CLI's state, handed back beside the code (the CLI checks it). */
    state: Type.String({ minLength: 16, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$' }),
    clientName: ClientName,
  },
  { additionalProperties: false },
);
export type NewCliLoginCode = Static<typeof NewCliLoginCode>;

export const CliLoginRedirect = Type.Object(
  {
    /** The loopback URL with `code` and `state`: the page sends the browser there. */
    redirectTo: Type.String(),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'CliLoginRedirect' },
);
export type CliLoginRedirect = Static<typeof CliLoginRedirect>;

export const CliLoginCodeExchange = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 200 }),
    codeVerifier: CodeVerifier,
    /** The same redirect URI the code was issued for. */
    redirectUri: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const CliLoginToken = Type.Object(
  {
    /** The new login token (olu_…), shown only here. */
    token: Type.String(),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    user: Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String(), name: Type.String() }),
  },
  { $id: 'CliLoginToken' },
);
export type CliLoginToken = Static<typeof CliLoginToken>;

export const NewDeviceCode = Type.Object({ clientName: ClientName }, { additionalProperties: false });

export const DeviceAuthorization = Type.Object(
  {
    /** The CLI's secret for polling (never shown to the person). */
    deviceCode: Type.String(),
    /** What the person confirms on the dashboard, `XXXX-XXXX`. */
    userCode: Type.String(),
    verificationUri: Type.String(),
    /** verificationUri with the code filled in. */
    verificationUriComplete: Type.String(),
    /** Seconds until the codes expire. */
    expiresIn: Type.Integer(),
    /** Seconds to wait between polls. */
    interval: Type.Integer(),
  },
  { $id: 'DeviceAuthorization' },
);
export type DeviceAuthorization = Static<typeof DeviceAuthorization>;

export const DevicePoll = Type.Object(
  { deviceCode: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

/** A pending device code as the confirmation page shows it: who asks, from where, since when. */
export const DeviceRequest = Type.Object(
  {
    userCode: Type.String(),
    clientName: Type.String(),
    requestedIp: Type.String(),
    requestedAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'DeviceRequest' },
);
export type DeviceRequest = Static<typeof DeviceRequest>;

export const UserCodeParams = Type.Object({ userCode: Type.String({ minLength: 1, maxLength: 20 }) });
