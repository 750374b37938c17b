// The identity sign-in's contract: which providers the sign-in page offers.
import { Type, type Static } from 'typebox';

export const SignInProvider = Type.Object(
  {
    id: Type.Union([Type.Literal('oidc'), Type.Literal('github')]),
    /** The button's label. */
    name: Type.String(),
    /** Where the button goes (GET; add `?invite=<token>` to join an org once signed in). */
    url: Type.String(),
  },
  { $id: 'SignInProvider' },
);
export type SignInProvider = Static<typeof SignInProvider>;
