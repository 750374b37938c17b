// The dashboard sign-in's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Uuid } from '../../server/schemas.js';

/** Who a dashboard session signs in, and until when. */
export const DashboardSession = Type.Object(
  {
    user: Type.Object({ id: Uuid, email: Type.String(), name: Type.String() }),
    expiresAt: DateTime,
  },
  { $id: 'DashboardSession' },
);
export type DashboardSession = Static<typeof DashboardSession>;

/** A single-use sign-in link. */
export const SignInLink = Type.Object({ url: Type.String(), expiresAt: DateTime });
export type SignInLink = Static<typeof SignInLink>;
