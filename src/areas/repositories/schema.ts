// The repositories area's contract: the routes validate and serialize with it, the services take and return its
// types.
import { Type, type Static } from 'typebox';
import { DateTime, Int53, Nullable, Literals } from '../../server/schemas.js';

/** GitHub's owner and repository name rules (owner ≤ 39, name ≤ 100, letters, digits, - _ .). */
export const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})';
export const NAME = '[A-Za-z0-9_.-]{1,100}';
export const RepositoryName = Type.String({
  pattern: `^${OWNER}/${NAME}$`,
  maxLength: 140,
  description: '`owner/repo`',
});

export const RepositoryEntry = Type.Object({
  repository: Type.String({ description: '`owner/repo` as GitHub spells it' }),
  connected: Type.Boolean(),
  installationId: Type.Integer(),
  defaultBranch: Type.String(),
  pullRequestWrite: Literals(['granted', 'pending', 'missing'], {
    description:
      'granted: the installation lets the App open pull requests; pending: the App asks for pull request write but ' +
      'the installation has not accepted it; missing: the App does not ask for it, or the installation no longer ' +
      'includes the repository',
  }),
  commentWrite: Literals(['granted', 'pending', 'missing'], {
    description:
      'Whether the App may keep the PR comment (pr_comment) on pull requests here: granted when the installation has ' +
      'pull requests write or issues write; pending when the App asks for one but the installation has not ' +
      'accepted it; missing otherwise',
  }),
  defaultBranchRequiresPullRequest: Type.Boolean({
    description: 'a pull_request branch rule or classic protection with required reviews applies to the default branch',
  }),
});
export type RepositoryEntry = Static<typeof RepositoryEntry>;

/** POST /v1/repositories' body. */
export const ConnectRepository = Type.Object(
  {
    repository: RepositoryName,
    installationId: Int53({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type ConnectRepository = Static<typeof ConnectRepository>;

export const InstallLink = Type.Object({
  url: Type.String({ description: '`<App page>/installations/new?state=...`' }),
  expiresAt: DateTime,
});
export type InstallLink = Static<typeof InstallLink>;

export const Binding = Type.Object({
  installationId: Type.Integer({ description: 'the GitHub App installation id' }),
  account: Nullable(
    Type.String({ description: "the installation's account login, as GitHub named it when it was bound" }),
  ),
  boundVia: Literals(['install_link', 'admin'], {
    description: "install_link: through this factory's install link; admin: by the operator",
  }),
  boundAt: DateTime,
});
export type Binding = Static<typeof Binding>;

export const Unbound = Type.Object({
  installationId: Type.Integer(),
  account: Nullable(Type.String({ description: "the installation's account login, as it was bound" })),
  disconnectedRepositories: Type.Array(Type.String({ description: '`owner/repo`' }), {
    description: "the factory's repositories connected through the installation, disconnected with it",
  }),
});
export type Unbound = Static<typeof Unbound>;
