// Keeps the GitHub double honest: every answer it gave while the gateway exercised every GitHub route it
// uses is checked against GitHub's OpenAPI response schema (@octokit/openapi) for that route and status,
// and the routes with recorded real responses (@octokit/fixtures) are checked against those too.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../helpers/gateway.js';
import { startGatewayWithGitHub, type GatewayWithGitHub } from './setup.js';
import { githubOpenApi, pointer, toJsonSchema } from './templates.js';
import { bindInstallation } from './setup.js';
import { ingest, sessionDoc } from '../areas/metrics/sessions.js';
import { deliver, pullRequestDelivery } from '../areas/webhooks/github.js';

const JSON_SCHEMA = ['content', 'application/json', 'schema'];

/** The GitHub routes the gateway calls (API.md §7); a new call must be added here and to the double. */
const ROUTES_THE_GATEWAY_CALLS = [
  'GET /app',
  'GET /app/installations/{installation_id}',
  'POST /app/installations/{installation_id}/access_tokens',
  'GET /installation/repositories',
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/branches/{branch}',
  'GET /repos/{owner}/{repo}/branches/{branch}/protection',
  'GET /repos/{owner}/{repo}/rules/branches/{branch}',
  'GET /repos/{owner}/{repo}/compare/{basehead}',
  'GET /repos/{owner}/{repo}/pulls',
  'POST /repos/{owner}/{repo}/pulls',
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
  // The verdict (issue 39): the PR's commits and files, the policy at the base commit, the check run.
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
  'GET /repos/{owner}/{repo}/contents/{path}',
  'POST /repos/{owner}/{repo}/check-runs',
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
];

interface Fixture {
  method: string;
  path: string;
  status: number;
  response: unknown;
}

function fixture(scenario: string): Fixture[] {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('@octokit/fixtures/package.json'));
  return JSON.parse(
    fs.readFileSync(path.join(dir, 'scenarios', 'api.github.com', scenario, 'normalized-fixture.json'), 'utf8'),
  ) as Fixture[];
}

/**
 * Keys of the recorded real answer (recursively, for nested objects) the double's answer lacks, and type mismatches.
 */
function shapeDifferences(real: unknown, ours: unknown, at = '', ignore: ReadonlySet<string> = new Set()): string[] {
  if (real === null || ours === null || typeof real !== 'object' || typeof ours !== 'object') {
    if (real !== null && ours !== null && typeof real !== typeof ours)
      return [`${at}: ${typeof real} vs ${typeof ours}`];
    return [];
  }
  if (Array.isArray(real) || Array.isArray(ours))
    return Array.isArray(real) === Array.isArray(ours) ? [] : [`${at}: array vs object`];
  const diffs: string[] = [];
  for (const [k, v] of Object.entries(real)) {
    const where = at ? `${at}.${k}` : k;
    if (ignore.has(where)) continue;
    if (!(k in ours)) diffs.push(`${where}: missing`);
    else diffs.push(...shapeDifferences(v, (ours as Record<string, unknown>)[k], where, ignore));
  }
  return diffs;
}

describe('the GitHub double answers as GitHub does', () => {
  let env: GatewayWithGitHub;
  let ajv: Ajv;
  const doc = githubOpenApi();

  beforeAll(async () => {
    ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
    ajv.addSchema(toJsonSchema({ components: doc.components, paths: doc.paths }) as object, 'gh');

    // Exercise every route the gateway calls, with success and refusal answers.
    const secret = crypto.randomBytes(16).toString('hex');
    env = await startGatewayWithGitHub({ GITHUB_WEBHOOK_SECRET: secret });
    const { gw, github } = env;
    const t = await createTenant(gw);
    const as = { token: t.factoryKey, appId: t.appId };
    const inst = github.addInstallation('acme', { ...github.appPermissions, administration: 'read', checks: 'write' });
    github.addRepository('acme/api', { installation: inst });
    github.repo('acme/api').protection.set('main', { requiredReviews: true });
    await bindInstallation(gw, t.appId, inst.id);
    expect(
      (await gw.call('POST', '/v1/repositories', { ...as, body: { repository: 'acme/api', installationId: inst.id } }))
        .status,
    ).toBe(201);
    expect(
      (await gw.call('POST', '/v1/repositories', { ...as, body: { repository: 'acme/api', installationId: 987_654 } }))
        .status,
    ).toBe(422);
    // GitHub's 404 for an installation it does not know, asked when the operator binds one.
    expect(
      (
        await gw.call('POST', `/v1/admin/apps/${t.appId}/installations`, {
          token: gw.adminToken,
          body: { installationId: 987_654 },
        })
      ).status,
    ).toBe(404);
    // The install link reads the App's page (GET /app html_url).
    expect((await gw.call('POST', '/v1/github/install-links', { token: t.loginToken, appId: t.appId })).status).toBe(
      201,
    );
    const item = await gw.call('POST', '/v1/work-items', {
      ...as,
      body: { tracker: 'github', trackerKey: 'acme/api#1', title: 'One', repository: 'acme/api' },
    });
    const claim = await gw.call('POST', `/v1/work-items/${item.body.data.id}/claims`, {
      ...as,
      body: { source: 'r', branch: 'feature/one', ttlSeconds: 3600 },
    });
    const key = claim.body.data.itemKey as string;
    const put = () =>
      gw.call('PUT', `/v1/work-items/${item.body.data.id}/pull-request`, {
        token: key,
        body: { title: 'One', body: 'Body' },
      });
    expect((await put()).status).toBe(422); // branch not pushed: a 404 from GitHub
    github.pushBranch('acme/api', 'feature/one', 0);
    expect((await put()).status).toBe(422); // no commits
    github.pushBranch('acme/api', 'feature/one', 1);
    expect((await put()).status).toBe(201);
    expect((await put()).status).toBe(200);
    github.fail(/^GET \/repos\/acme\/api\/pulls$/, { kind: 'status', status: 200, body: [] });
    expect((await put()).status).toBe(200); // GitHub's 422 "already exists" on create
    github.repo('acme/api').rules.set('main', ['deletion', 'pull_request']);
    expect((await gw.call('GET', '/v1/repositories', as)).body.data[0].defaultBranchRequiresPullRequest).toBe(true);
    github.repo('acme/api').protection.delete('main');
    github.repo('acme/api').rules.set('main', []);
    expect((await gw.call('GET', '/v1/repositories', as)).status).toBe(200); // 404 "Branch not protected"

    // The PR comment: list, create, edit, and the removal of a duplicate of ours.
    expect((await gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as, body: { pr_comment: 'on' } })).status).toBe(200);
    const png = Buffer.from('89504e47', 'hex');
    const artifact = (caption: string) =>
      gw.call('POST', '/v1/artifacts', {
        ...as,
        body: {
          schemaVersion: 1,
          artifact: {
            clientArtifactId: caption,
            filename: 'a.png',
            mediaType: 'image/png',
            bytes: png.length,
            sha256: crypto.createHash('sha256').update(png).digest('hex'),
            caption,
            emittedAt: '2026-11-01T12:00:00Z',
            repository: 'acme/api',
            prNumber: 1,
          },
          blob: { data: png.toString('base64') },
        },
      });
    expect((await artifact('one')).status).toBe(201);
    gw.clock.advance(60_000);
    expect((await gw.app.attest.jobs.runDueJobs()).posted).toBe(1);
    github.commentAs('attest-test-app[bot]', 'acme/api', 1, `<!-- attest:pr-comment factory=${t.appId} -->`);
    github.commentAs('alice', 'acme/api', 1, 'a person');
    await gw.app.attest.db.updateTable('pr_comment_jobs').set({ comment_id: null }).execute();
    expect((await artifact('two')).status).toBe(201);
    gw.clock.advance(60_000);
    expect((await gw.app.attest.jobs.runDueJobs()).posted).toBe(1);
    expect(github.commentsOn('acme/api', 1).map((c) => c.user)).toEqual(['attest-test-app[bot]', 'alice']);

    // The verdict: the PR's head and base commits from its webhook; the policy file and the validators'
    // folder at the base (a file, a listing, a 404), then the check run created and, on a change, updated.
    const pull = github.pulls.find((p) => p.number === 1)!;
    pull.files = [{ filename: 'src/a.ts', status: 'modified' }];
    const base = github.headOf('acme/api', 'main');
    github.putFiles('acme/api', base, {
      '.attest/policy.yaml': 'validators:\n  ci-green: block\n',
      '.attest/validators/e2e.yaml': 'name: e2e\nrequire:\n  emitted: [e2e]\n',
    });
    const payload = pullRequestDelivery({
      repository: 'acme/api',
      number: 1,
      title: 'One',
      head: 'feature/one',
      headSha: pull.headSha,
      updatedAt: '2030-01-01T00:00:00Z',
      installationId: inst.id,
    });
    ((payload.pull_request as Record<string, unknown>).base as Record<string, unknown>).sha = base;
    expect(
      (await deliver({ gw, github, installation: inst, secret, close: async () => undefined }, 'pull_request', payload))
        .status,
    ).toBeLessThan(300);
    expect((await gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as, body: { pr_check: 'on' } })).status).toBe(200);
    const sessionDocument = sessionDoc({
      repo: 'acme/api',
      branch: 'feature/one',
      prNumber: 1,
      startedAt: '2026-11-01T11:00:00Z',
      turns: [{ model: 'claude-sonnet-4-5', in: 10, out: 1 }],
    });
    await ingest(gw, as, [sessionDocument]);
    gw.clock.advance(60_000);
    await gw.app.attest.jobs.runDueJobs();
    expect(github.checkRunsOn('acme/api', pull.headSha)).toHaveLength(1);
    // The custom validator's result arrives: its row passes, so the check run is updated in place.
    const emitted = await gw.call('POST', '/v1/emitted-results', {
      ...as,
      body: {
        schemaVersion: 1,
        emit: {
          clientEmitId: 'e2e-1',
          name: 'e2e',
          result: 'pass',
          link: 'https://ci.example/1',
          emittedAt: '2026-11-01T12:01:00Z',
          prNumber: 1,
          repository: 'acme/api',
        },
      },
    });
    expect(emitted.status, emitted.text).toBe(201);
    gw.clock.advance(60_000);
    await gw.app.attest.jobs.runDueJobs();
    expect(github.countCalls('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}')).toBe(1);
    // GitHub's 404 for a path that is not at the commit, read as "no such file".
    await gw.app.attest.db.deleteFrom('verdict_policies').execute();
    github.repo('acme/api').contents.get(base)!.delete('.attest/policy.yaml');
    expect((await gw.call('GET', '/v1/prs/acme/api/1/verdict', as)).status).toBe(200);
  });
  afterAll(async () => {
    await env?.close();
  });

  it('was driven through every GitHub route the gateway calls', () => {
    expect([...env.github.calledRoutes()].sort()).toEqual([...ROUTES_THE_GATEWAY_CALLS].sort());
  });

  it('gives answers that match GitHub’s OpenAPI response schema for the route and status', () => {
    const cache = new Map<string, ValidateFunction>();
    const checked = new Set<string>();
    const failures = new Set<string>();
    const calls = env.github.calls.filter(
      (c) => c.route && c.status > 0 && c.body !== null && typeof c.body === 'object',
    );
    expect(calls.length).toBeGreaterThan(20);
    for (const call of calls) {
      const method = call.method.toLowerCase();
      const operation = doc.paths[call.route!]?.[method];
      expect(operation, `${call.method} ${call.route} is in GitHub's OpenAPI description`).toBeDefined();
      const response = operation!.responses[String(call.status)] as
        | { $ref?: string; content?: Record<string, unknown> }
        | undefined;
      // Statuses GitHub does not document for the route (a faked answer, or an undocumented 404 body).
      if (!response) continue;
      const ref = response.$ref
        ? `gh#/${pointer('components', 'responses', response.$ref.split('/').pop()!, ...JSON_SCHEMA)}`
        : `gh#/${pointer('paths', call.route!, method, 'responses', String(call.status), ...JSON_SCHEMA)}`;
      let validate = cache.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        cache.set(ref, validate);
      }
      if (!validate(call.body)) {
        failures.add(
          `${call.method} ${call.route} ${call.status}: ` +
            `${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 800)}`,
        );
      }
      checked.add(`${call.method} ${call.route} ${call.status}`);
    }
    expect([...failures]).toEqual([]);
    // DELETE answers 204 with no body: checked by status against the description instead.
    const deletes = env.github.calls.filter((c) => c.method === 'DELETE' && c.route && c.status > 0);
    expect(deletes.length).toBeGreaterThan(0);
    for (const d of deletes) expect(Object.keys(doc.paths[d.route!]!.delete!.responses)).toContain(String(d.status));
    for (const route of ROUTES_THE_GATEWAY_CALLS.filter((r) => !r.startsWith('DELETE '))) {
      expect(
        [...checked].some((c) => c.startsWith(`${route} 2`)),
        `a success answer of ${route} was checked`,
      ).toBe(true);
    }
    // Refusals the gateway interprets, checked against GitHub's documented error shapes.
    expect(checked).toContain('GET /app/installations/{installation_id} 404');
    expect(checked).toContain('POST /repos/{owner}/{repo}/pulls 422');
  });

  it('matches recorded real answers of GitHub (@octokit/fixtures)', () => {
    const calls = env.github.calls;
    // GET /repos/{owner}/{repo}: the recorded answer was for a user token, which adds the caller's
    // permissions and the temp clone token; an installation token gets neither.
    const realRepo = fixture('get-repository').find((f) => f.method === 'get' && f.status === 200)!.response;
    const ourRepo = calls.find((c) => c.route === '/repos/{owner}/{repo}' && c.status === 200)!.body;
    expect(
      shapeDifferences(realRepo, ourRepo, '', new Set(['permissions', 'temp_clone_token', 'organization', 'license'])),
    ).toEqual([]);

    // Branch protection: the recorded 404 of an unprotected branch, and the protection object itself.
    const protection = fixture('branch-protection');
    const real404 = protection.find((f) => f.method === 'get' && f.status === 404)!.response as { message: string };
    const our404 = calls.find(
      (c) => c.route === '/repos/{owner}/{repo}/branches/{branch}/protection' && c.status === 404,
    )!.body as { message: string };
    expect(shapeDifferences(real404, our404)).toEqual([]);
    expect(our404.message).toBe(real404.message);
    const realProtection = protection.filter((f) => f.method === 'put' && f.status === 200).at(-1)!.response;
    const ourProtection = calls.find(
      (c) => c.route === '/repos/{owner}/{repo}/branches/{branch}/protection' && c.status === 200,
    )!.body;
    expect(shapeDifferences(realProtection, ourProtection)).toEqual([]);

    // A 422 validation failure, as GitHub shapes it.
    const real422 = fixture('errors').find((f) => f.status === 422)!.response;
    const our422 = calls.find(
      (c) => c.route === '/repos/{owner}/{repo}/pulls' && c.method === 'POST' && c.status === 422,
    )!.body;
    expect(shapeDifferences(real422, our422, '', new Set(['errors']))).toEqual([]);
    expect((our422 as { message: string }).message).toBe((real422 as { message: string }).message);
  });
});
