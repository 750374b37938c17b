// Connected repositories: a factory connects a repository its GitHub App installation lists; each entry
// reports, live from GitHub, whether builds may open pull requests there (the installation's pull
// request write permission: granted, pending acceptance, or missing from the App) and whether the default
// branch requires a pull request (branch rules or classic protection).
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import {
  commentWriteOf,
  githubApp,
  pullRequestWriteOf,
  type GitHubApp,
  type InstallationClient,
  type RepositoryInfo,
} from '../../codehost/github.js';
import type { FactoryContext, RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { recordAudit } from '../../server/audit.js';
import * as store from './store.js';
import type { ConnectRepository, RepositoryEntry } from './schema.js';
import { isBound } from './installations.js';

/** What other areas need to act on a connected repository. */
export interface ConnectedRepository {
  id: string;
  repository: string;
  owner: string;
  name: string;
  installationId: number;
  defaultBranch: string;
}

function connectedOf(row: store.RepositoryRow): ConnectedRepository {
  const [owner, name] = row.full_name.split('/') as [string, string];
  return {
    id: row.id,
    repository: row.full_name,
    owner,
    name,
    installationId: Number(row.installation_id),
    defaultBranch: row.default_branch,
  };
}

/** The factory's connection of `owner/repo` (any case), or null. */
export async function findConnectedRepository(
  ctx: FactoryContext,
  fullName: string,
): Promise<ConnectedRepository | null> {
  const row = await store.findRepository(ctx.db, ctx.appId, fullName);
  return row ? connectedOf(row) : null;
}

/**
 * Every factory that connected `owner/repo` through `installationId` (any installation when null), for
 * code-host events that name a repository rather than a factory (webhooks). No GitHub call.
 */
export function factoriesConnectedTo(
  ctx: RequestContext,
  fullName: string,
  installationId: number | null,
): Promise<Array<{ orgId: string; appId: string }>> {
  return store.factoriesConnectedTo(ctx.db, fullName, installationId);
}

/** What one installation grants and lists, read once per listing. */
interface InstallationView {
  granted: Record<string, string>;
  client: InstallationClient;
  repositories: Map<string, RepositoryInfo>;
}

/** Null when the installation does not exist (any more). */
async function viewOf(github: GitHubApp, installationId: number): Promise<InstallationView | null> {
  const granted = await github.installationPermissions(installationId);
  if (!granted) return null;
  const client = await github.installation(installationId);
  if (!client) return null;
  return { granted, client, repositories: await client.listRepositories() };
}

/** The live entry of one connection. */
async function entryOf(
  row: store.RepositoryRow,
  view: InstallationView | null,
  requested: () => Promise<Record<string, string>>,
): Promise<RepositoryEntry> {
  const base = connectedOf(row);
  const seen = view?.repositories.get(store.nameKey(base.repository));
  if (!view || !seen) {
    // The installation is gone or no longer lists the repository: builds can do nothing there.
    return {
      repository: base.repository,
      connected: true,
      installationId: base.installationId,
      defaultBranch: base.defaultBranch,
      pullRequestWrite: 'missing',
      commentWrite: 'missing',
      defaultBranchRequiresPullRequest: false,
    };
  }
  const [owner, name] = seen.fullName.split('/') as [string, string];
  return {
    repository: seen.fullName,
    connected: true,
    installationId: base.installationId,
    defaultBranch: seen.defaultBranch,
    pullRequestWrite: pullRequestWriteOf(view.granted, await requested()),
    commentWrite: commentWriteOf(view.granted, await requested()),
    defaultBranchRequiresPullRequest: await view.client.requiresPullRequest(owner, name, seen.defaultBranch),
  };
}

function memo<K, V>(fn: (k: K) => Promise<V>): (k: K) => Promise<V> {
  const seen = new Map<K, Promise<V>>();
  return (k) => {
    let p = seen.get(k);
    if (!p) {
      p = fn(k);
      seen.set(k, p);
    }
    return p;
  };
}

export async function listRepositories(ctx: FactoryContext): Promise<RepositoryEntry[]> {
  const rows = await store.listRepositories(ctx.db, ctx.appId);
  if (rows.length === 0) return [];
  const github = githubApp(ctx.gateway);
  const requested = memo((_: null) => github.requestedPermissions());
  const views = memo((id: number) => viewOf(github, id));
  const entries: RepositoryEntry[] = [];
  // One repository at a time: a factory has few, and GitHub's secondary limits punish bursts.
  for (const row of rows)
    entries.push(await entryOf(row, await views(Number(row.installation_id)), () => requested(null)));
  return entries;
}

/**
 * Connects a repository the installation lists (422 repository_not_in_installation otherwise, also when
 * the installation does not exist). Connecting again updates the installation; `created` says which.
 */
export async function connectRepository(
  ctx: FactoryContext,
  input: ConnectRepository,
): Promise<{ entry: RepositoryEntry; created: boolean }> {
  const github = githubApp(ctx.gateway);
  // Knowing an installation id and a repository name proves nothing: the installation must have been bound
  // to this factory through its own install link or by the operator (installations.ts). Checked before
  // any GitHub call (after the App's configuration, so a gateway without one still answers 503), so an unbound
  // installation costs nothing and learns nothing about the installation.
  const notBound = () =>
    apiError(
      'installation_not_bound',
      `The App installation ${input.installationId} is not bound to this factory. Install the App through this ` +
        `factory's install link (POST /v1/github/install-links), or ask the operator to bind it.`,
      {
        installationId: input.installationId,
      },
    );
  if (!(await isBound(ctx, input.installationId))) throw notBound();
  const notListed = () =>
    apiError(
      'repository_not_in_installation',
      `The App installation ${input.installationId} does not include ${input.repository}.`,
      {
        repository: input.repository,
        installationId: input.installationId,
      },
    );
  const view = await viewOf(github, input.installationId);
  const found = view?.repositories.get(store.nameKey(input.repository));
  if (!view || !found) throw notListed();

  const now = ctx.clock.now();
  const existing = await store.findRepository(ctx.db, ctx.appId, found.fullName);
  let created = false;
  if (existing) {
    await store.updateConnection(ctx.db, ctx.appId, existing.id, {
      full_name: found.fullName,
      github_id: found.id,
      installation_id: input.installationId,
      default_branch: found.defaultBranch,
      updated_at: now,
    });
  } else {
    try {
      await store.insertRepository(ctx.db, {
        id: crypto.randomUUID(),
        org_id: ctx.orgId,
        app_id: ctx.appId,
        full_name: found.fullName,
        full_name_key: store.nameKey(found.fullName),
        github_id: found.id,
        installation_id: input.installationId,
        default_branch: found.defaultBranch,
        connected_by: ctx.principal.userId,
        created_at: now,
        updated_at: now,
      });
      created = true;
    } catch (err) {
      // A concurrent connect of the same repository won; the connection exists either way.
      if (!isUniqueViolation(err)) throw err;
    }
  }
  // An unbind may have removed the binding since the check above, and read the factory's repositories before
  // this connection was written: read the binding again now, and undo the connection if it is gone (it would
  // otherwise stay connected through an installation the factory no longer holds).
  if (!(await store.bindingHeld(ctx.db, ctx.appId, input.installationId))) {
    await store.deleteRepository(ctx.db, ctx.appId, found.fullName);
    throw notBound();
  }
  if (created) {
    await recordAudit(ctx.db, ctx.clock, {
      orgId: ctx.orgId,
      actionType: 'repository.connected',
      actor: ctx.principal,
      targetType: 'repository',
      targetId: found.fullName,
      targetIdentifier: found.fullName,
      details: { installationId: input.installationId },
    });
  }
  const row = await store.findRepository(ctx.db, ctx.appId, found.fullName);
  if (!row) throw apiError('internal_error', 'The connection vanished while it was being made.');
  const entry = await entryOf(row, view, () => github.requestedPermissions());
  return { entry, created };
}

export async function disconnectRepository(ctx: FactoryContext, fullName: string): Promise<void> {
  const row = await store.findRepository(ctx.db, ctx.appId, fullName);
  if (!row || !(await store.deleteRepository(ctx.db, ctx.appId, fullName))) {
    throw apiError('repository_not_found', `${fullName} is not connected to this factory.`);
  }
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'repository.disconnected',
    actor: ctx.principal,
    targetType: 'repository',
    targetId: row.full_name,
    targetIdentifier: row.full_name,
    details: { installationId: Number(row.installation_id) },
  });
}
