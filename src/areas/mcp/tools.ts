// The MCP tools: each mirrors one REST read and is answered by calling that route in process, with the
// caller's own credential, so permissions, validation and rate-limit buckets are exactly the REST route's.
// A tool's input schema is built from the REST route's own query and path parameters (read from the
// OpenAPI document), so there is one definition of what a read accepts.
import type { App } from '../../server/context.js';

export interface ToolSpec {
  name: string;
  /** The REST twin, OpenAPI-style path ({param} segments). */
  path: string;
  description: string;
}

/** Every tool the gateway can offer; a tool is registered only when its REST twin is served. */
export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'list_sessions',
    path: '/v1/sessions',
    description: 'List agent sessions of the factory (filters, sorting, paging as GET /v1/sessions).',
  },
  {
    name: 'get_session',
    path: '/v1/sessions/{traceId}',
    description:
      'One session with its turns, events and per-model usage, cache writes by TTL (GET /v1/sessions/{traceId}).',
  },
  {
    name: 'get_model_costs',
    path: '/v1/metrics/models',
    description:
      'Per-model token spend and cost in a window, cache writes by TTL (five-minute and one-hour) (GET ' +
      '/v1/metrics/models).',
  },
  {
    name: 'get_fleet_overview',
    path: '/v1/metrics/overview',
    description: 'Fleet tiles of a window beside the window before it (GET /v1/metrics/overview).',
  },
  {
    name: 'compare_windows',
    path: '/v1/metrics/compare',
    description: 'The tiles of two windows side by side with deltas (GET /v1/metrics/compare).',
  },
  {
    name: 'get_breakdown',
    path: '/v1/metrics/breakdown',
    description: 'Sessions, cost and tool behaviour grouped by one dimension (GET /v1/metrics/breakdown).',
  },
  { name: 'get_trends', path: '/v1/metrics/trends', description: 'Daily points of a window (GET /v1/metrics/trends).' },
  {
    name: 'get_pr_outcomes',
    path: '/v1/prs/outcomes',
    description: 'Pull-request outcomes attributed to agent sessions (GET /v1/prs/outcomes).',
  },
  {
    name: 'get_pr',
    path: '/v1/prs/{owner}/{repo}/{number}',
    description: 'One pull request with its state, checks and sessions (GET /v1/prs/{owner}/{repo}/{number}).',
  },
  {
    name: 'get_pr_verdict',
    path: '/v1/prs/{owner}/{repo}/{number}/verdict',
    description:
      'The verdict of a pull request (clean, review, unverifiable, waiting, none) with its rows and the turns that ' +
      'prove them (GET /v1/prs/{owner}/{repo}/{number}/verdict).',
  },
  {
    name: 'list_context_changes',
    path: '/v1/context/changes',
    description: 'History of the synced context tree (GET /v1/context/changes).',
  },
  {
    name: 'get_context_source',
    path: '/v1/context/source',
    description: 'A context file at a synced commit (GET /v1/context/source).',
  },
  {
    name: 'list_work_items',
    path: '/v1/work-items',
    description:
      'Work items of the factory: the live ones, or with `withdrawn: true` the withdrawn ones instead (GET ' +
      '/v1/work-items).',
  },
  {
    name: 'list_work_item_artifacts',
    path: '/v1/work-items/{id}/artifacts',
    description: 'Evidence artifacts of one work item (GET /v1/work-items/{id}/artifacts).',
  },
  {
    name: 'list_emitted_results',
    path: '/v1/emitted-results',
    description: 'Results emitted by runs and CI (GET /v1/emitted-results).',
  },
  { name: 'list_hosts', path: '/v1/hosts', description: 'Runner hosts and their status (GET /v1/hosts).' },
];

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties: false;
  [key: string]: unknown;
}

export interface Tool {
  spec: ToolSpec;
  pathParams: string[];
  inputSchema: JsonSchemaObject;
  /** The permission the REST twin needs (shown to the model; the REST route is what enforces it). */
  permission: string | null;
}

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: Record<string, unknown>;
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: OpenApiParameter[]; description?: string }>>;
}

/** The spellings a REST flag accepts in a query string (`withdrawn=true`, `=1`, ...). */
const FLAG_SPELLINGS = new Set(['true', 'false', '1', '0']);

/** The values of a query schema made only of string constants (an enum, or a union of one-value enums). */
function stringConstants(schema: Record<string, unknown>): string[] | null {
  const parts = Array.isArray(schema.anyOf) ? (schema.anyOf as Record<string, unknown>[]) : [schema];
  const values: string[] = [];
  for (const part of parts) {
    if (part.type !== 'string' || !Array.isArray(part.enum)) return null;
    for (const value of part.enum) {
      if (typeof value !== 'string') return null;
      values.push(value);
    }
  }
  return values;
}

/** A query flag (its values are spellings of true and false) is shown to a model as a JSON boolean, which is
 *  what a model sends for a yes/no argument; restUrlOf writes it as `true`/`false`, which the route accepts. */
function toolParameterSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const values = stringConstants(schema);
  const isFlag =
    values?.includes('true') && values.includes('false') && values.every((value) => FLAG_SPELLINGS.has(value));
  return isFlag ? { type: 'boolean' } : schema;
}

/** The tools whose REST twin this app serves, with input schemas taken from the twin's parameters. */
export function buildTools(app: App): Tool[] {
  const doc = (app as unknown as { swagger(): OpenApiDocument }).swagger();
  const tools: Tool[] = [];
  for (const spec of TOOL_SPECS) {
    const op = doc.paths?.[spec.path]?.get;
    if (!op) continue;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const pathParams: string[] = [];
    for (const p of op.parameters ?? []) {
      if (p.in !== 'query' && p.in !== 'path') continue;
      // `appId` in a query names a cookie read's factory (src/server/query-rule.ts); an MCP call has its own.
      if (p.in === 'query' && p.name === 'appId') continue;
      properties[p.name] = {
        ...toolParameterSchema(p.schema ?? {}),
        ...(p.description ? { description: p.description } : {}),
      };
      if (p.in === 'path') pathParams.push(p.name);
      // A parameter with a default is optional to the caller even when the schema lists it as required.
      if (p.in === 'path' || (p.required && p.schema?.default === undefined)) required.push(p.name);
    }
    const permission = /Requires permission `([^`]+)`/.exec(op.description ?? '')?.[1] ?? null;
    tools.push({
      spec,
      pathParams,
      permission,
      inputSchema: {
        type: 'object',
        properties,
        ...(required.length ? { required } : {}),
        additionalProperties: false,
      },
    });
  }
  return tools;
}

/** A lone UTF-16 surrogate cannot be percent-encoded (encodeURIComponent throws); it becomes U+FFFD, so
 *  the REST route answers its own 404/400 instead of the tool call failing with an internal error. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** The REST URL a tool call addresses: path parameters substituted, the rest as the query string. */
export function restUrlOf(tool: Tool, args: Record<string, unknown>): string {
  let path = tool.spec.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (tool.pathParams.includes(name)) {
      path = path.replace(`{${name}}`, encodeURIComponent(wellFormed(String(value))));
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value])
      query.append(name, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  // A path parameter left out stays as an empty segment, so the REST route answers its own 400/404.
  path = path.replace(/\{[^}]+\}/g, '');
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

export const GUIDE_URI = 'attest://guide/tools';

/** The one resource: a short guide to the tools, for a model deciding which to call. */
export function toolGuide(tools: readonly Tool[]): string {
  const lines = [
    '# Attest MCP tools',
    '',
    'Every tool mirrors a read of the Attest REST API (v1) on the factory this connection acts on, with the same',
    'parameters, permissions and rate limits. A result is the REST body `{ data, pagination? }` as structured',
    'content and as JSON text. A refused call is an error result naming the error `code` (for a missing',
    'permission, `required_permission`).',
    '',
    'Windows (`from`, `to`) take `YYYY-MM-DD` or ISO date-times; the default window is the last 30 days.',
    'Start with get_fleet_overview or list_sessions, then drill into get_session, get_breakdown or get_pr.',
    '',
  ];
  for (const t of tools) {
    lines.push(`- **${t.spec.name}**${t.permission ? ` (needs \`${t.permission}\`)` : ''}: ${t.spec.description}`);
  }
  return `${lines.join('\n')}\n`;
}
