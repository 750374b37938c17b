// Response templates for the GitHub double, taken from GitHub's own OpenAPI description
// (@octokit/openapi, components.examples): the double fills in its state on top of the shapes GitHub
// documents, so its answers carry every field real answers carry. schema.test.ts checks the result
// against the OpenAPI response schemas and against recorded real responses (@octokit/fixtures).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: {
    examples: Record<string, { value: unknown }>;
    schemas: Record<string, unknown>;
    responses: Record<string, unknown>;
  };
}

let cached: OpenApiDocument | null = null;

/** GitHub's OpenAPI description of api.github.com (parsed once per process). */
export function githubOpenApi(): OpenApiDocument {
  if (!cached) {
    const dir = path.dirname(require.resolve('@octokit/openapi/package.json'));
    cached = JSON.parse(fs.readFileSync(path.join(dir, 'generated', 'api.github.com.json'), 'utf8')) as OpenApiDocument;
  }
  return cached;
}

export type Json = Record<string, unknown>;

/** A deep copy of a documented example, e.g. 'pull-request', 'full-repository-default-response'. */
export function example<T = Json>(name: string): T {
  const found = githubOpenApi().components.examples[name];
  if (!found) throw new Error(`no OpenAPI example named ${name}`);
  return structuredClone(found.value) as T;
}

/** Rewrite the example's repository (octocat/Hello-World) into another one, in every URL and name. */
export function retarget<T>(value: T, owner: string, repo: string, apiBase: string, webBase: string): T {
  let text = JSON.stringify(value);
  text = text
    .replaceAll('https://api.github.com', apiBase)
    .replaceAll('https://github.com', webBase)
    .replaceAll('octocat/Hello-World', `${owner}/${repo}`)
    .replaceAll('"Hello-World"', JSON.stringify(repo));
  return JSON.parse(text) as T;
}

/** A recorded real GitHub answer from @octokit/fixtures (scenario on api.github.com, method, status; last match). */
export function recorded<T = Json>(scenario: string, method: string, status: number): T {
  const dir = path.dirname(require.resolve('@octokit/fixtures/package.json'));
  const file = path.join(dir, 'scenarios', 'api.github.com', scenario, 'normalized-fixture.json');
  const fixtures = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{
    method: string;
    status: number;
    response: unknown;
  }>;
  const found = fixtures.filter((f) => f.method === method && f.status === status).at(-1);
  if (!found) throw new Error(`no recorded ${method} ${status} in ${scenario}`);
  return structuredClone(found.response) as T;
}

type Node = unknown;

/** OpenAPI 3.0 → JSON Schema: `nullable: true` becomes a null alternative; refs point into the "gh" document. */
export function toJsonSchema(node: Node): Node {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples' || k === 'nullable' || k === 'discriminator' || k.startsWith('x-'))
      continue;
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `gh${v}` : toJsonSchema(v);
  }
  if ((node as { nullable?: unknown }).nullable === true) {
    if (typeof out.type === 'string' && !out.$ref && !out.allOf && !out.anyOf && !out.oneOf) {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

export function pointer(...segments: string[]): string {
  return segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}
