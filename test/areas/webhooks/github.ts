// Test support for webhook-driven PR state: a gateway wired to the GitHub double (so repositories can be
// connected through POST /v1/repositories), signed deliveries, and payloads built from GitHub's own example
// deliveries (@octokit/webhooks-examples) with the fields under test replaced.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { GitHubDouble, generateAppKeys, type DoubleInstallation } from '../../github-double/server.js';
import { startGateway, type CallResult, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { bindInstallation } from '../../github-double/setup.js';

const require = createRequire(import.meta.url);

type Json = Record<string, unknown>;
interface ExampleDefinition {
  name: string;
  examples: Json[];
}
const EXAMPLES = require('@octokit/webhooks-examples') as ExampleDefinition[];

/** A deep copy of GitHub's example delivery of `event` with `action` (the first one whose filter passes). */
export function exampleDelivery(event: string, action: string, filter: (p: Json) => boolean = () => true): Json {
  const def = EXAMPLES.find((d) => d.name === event);
  const found = def?.examples.find((e) => e.action === action && filter(e));
  if (!found) throw new Error(`no example ${event}.${action}`);
  return structuredClone(found);
}

export interface GithubGateway {
  gw: TestGateway;
  github: GitHubDouble;
  installation: DoubleInstallation;
  secret: string;
  close(): Promise<void>;
}

export async function startWithGithub(): Promise<GithubGateway> {
  const keys = generateAppKeys();
  const github = new GitHubDouble(keys.publicKey);
  await github.start();
  const secret = crypto.randomBytes(16).toString('hex');
  const gw = await startGateway({
    env: {
      GITHUB_API_URL: github.url,
      GITHUB_APP_ID: String(github.appId),
      GITHUB_APP_PRIVATE_KEY: keys.privateKeyPem,
      GITHUB_WEBHOOK_SECRET: secret,
    },
  });
  const installation = github.addInstallation('acme');
  return {
    gw,
    github,
    installation,
    secret,
    close: async () => {
      await gw.close();
      await github.close();
    },
  };
}

/** Connect `fullName` (created in the double, listed by the installation) to the tenant's factory. */
export async function connectRepository(g: GithubGateway, tenant: Tenant, fullName: string): Promise<void> {
  if (!g.github.repositories.has(fullName.toLowerCase()))
    g.github.addRepository(fullName, { installation: g.installation });
  await bindInstallation(g.gw, tenant.appId, g.installation.id);
  const r = await g.gw.call('POST', '/v1/repositories', {
    token: tenant.factoryKey,
    appId: tenant.appId,
    body: { repository: fullName, installationId: g.installation.id },
  });
  if (r.status >= 300) throw new Error(`connect ${fullName}: ${r.status} ${r.text}`);
}

export function sign(secret: string, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

export async function deliver(
  g: GithubGateway,
  event: string,
  payload: Json,
  opts: { secret?: string; signature?: string } = {},
): Promise<CallResult> {
  const raw = JSON.stringify(payload);
  return g.gw.call('POST', '/v1/webhooks/github', {
    raw,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': opts.signature ?? sign(opts.secret ?? g.secret, raw),
    },
  });
}

export interface PullSpec {
  repository: string;
  number: number;
  title: string;
  body?: string | null;
  head: string;
  headSha?: string;
  state?: 'open' | 'closed';
  merged?: boolean;
  action?: string;
  updatedAt: string;
  installationId: number | null;
}

/** A pull_request delivery shaped like GitHub's, for `spec`. */
export function pullRequestDelivery(spec: PullSpec): Json {
  const action = spec.action ?? (spec.state === 'closed' ? 'closed' : 'opened');
  const payload = exampleDelivery('pull_request', action === 'closed' ? 'closed' : 'opened', (p) =>
    Boolean(p.installation),
  );
  payload.action = action;
  const [owner, name] = spec.repository.split('/') as [string, string];
  const repo = payload.repository as Json;
  repo.full_name = spec.repository;
  repo.name = name;
  (repo.owner as Json).login = owner;
  payload.installation = spec.installationId === null ? undefined : { id: spec.installationId, node_id: 'x' };
  if (spec.installationId === null) delete payload.installation;
  const pr = payload.pull_request as Json;
  pr.number = spec.number;
  pr.html_url = `https://github.com/${spec.repository}/pull/${spec.number}`;
  pr.title = spec.title;
  pr.body = spec.body ?? null;
  pr.state = spec.state ?? 'open';
  pr.merged = spec.merged ?? false;
  pr.merged_at = spec.merged ? spec.updatedAt : null;
  pr.closed_at = spec.state === 'closed' ? spec.updatedAt : null;
  pr.created_at = '2026-10-01T10:00:00Z';
  pr.updated_at = spec.updatedAt;
  (pr.head as Json).ref = spec.head;
  (pr.head as Json).sha = spec.headSha ?? crypto.createHash('sha1').update(spec.head).digest('hex');
  (pr.base as Json).ref = 'main';
  return payload;
}

export interface CheckSpec {
  repository: string;
  id: number;
  headSha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: string | null;
  installationId: number;
}

export function checkDelivery(event: 'check_run' | 'check_suite', spec: CheckSpec): Json {
  const action = spec.status === 'completed' ? 'completed' : event === 'check_run' ? 'created' : 'requested';
  const payload = exampleDelivery(event, action);
  (payload.repository as Json).full_name = spec.repository;
  payload.installation = { id: spec.installationId, node_id: 'x' };
  const check = payload[event] as Json;
  check.id = spec.id;
  check.head_sha = spec.headSha;
  check.status = spec.status;
  check.conclusion = spec.conclusion ?? null;
  return payload;
}
