// One compiled validator of the AgentSession v1 schema; each session of a sync is checked on its own so one
// bad session is rejected with a reason while the others are accepted.
import { Ajv2020, type AnySchema, type ErrorObject } from 'ajv/dist/2020.js';
import { AGENT_SESSION_V1_SCHEMA } from './agent-session-schema.js';
import type { AgentSessionV1 } from '../sessions/document.js';
import { INT32_MAX } from '../../server/schemas.js';
import { addFormats, withNumberBounds } from '../../server/validation.js';

/**
 * Fields of AgentSession v1 the gateway keeps in 32-bit columns, or sums over turns (per-turn tokens): the
 * published schema lets them reach 2^53-1, which PostgreSQL's `integer` refuses (a 500) and whose sums
 * would leave `bigint`. The gateway narrows them to what its columns hold (docs/security.md); the schema
 * itself stays verbatim.
 */
const INT32_FIELDS: readonly string[][] = [
  ['chunk', 'of'],
  ['chunk', 'part'],
  ['outcome', 'prNumber'],
  ['outcome', 'prs', '[]', 'prNumber'],
  ['turns', '[]', 'index'],
  ['events', '[]', 'seq'],
  ['events', '[]', 'turnIndex'],
  ['turns', '[]', 'usage', 'in'],
  ['turns', '[]', 'usage', 'out'],
  ['turns', '[]', 'usage', 'cacheRead'],
  ['turns', '[]', 'usage', 'cacheCreate'],
];

/**
 * Strings of AgentSession v1 the gateway keeps in indexed columns, which the published schema leaves unbounded:
 * the session key (id, agent id), the parent link, the list's repository and branch indexes, the facet, model
 * usage and tool counter keys, and the repository of a PR a session names (from its URL). PostgreSQL's btree
 * refuses an index entry over 2,704 bytes, so one long value answered 500 for the whole sync (and SQLite stored
 * what PostgreSQL could not). At 200 characters (800 bytes at most) even the widest entry, (app_id, repo,
 * is_subagent, branch, started_at, id), stays far below that limit. A PR URL carries its repository: 500.
 */
export const STRING_BOUNDS: readonly { path: readonly string[]; maxLength: number }[] = [
  { path: ['id'], maxLength: 200 },
  { path: ['subagent', 'agentId'], maxLength: 200 },
  { path: ['subagent', 'parentSessionId'], maxLength: 200 },
  { path: ['env', 'gitRepo'], maxLength: 200 },
  { path: ['env', 'gitBranch'], maxLength: 200 },
  { path: ['agent', 'type'], maxLength: 200 },
  { path: ['models', '[]'], maxLength: 200 },
  { path: ['turns', '[]', 'model'], maxLength: 200 },
  { path: ['turns', '[]', 'toolCalls', '[]', 'name'], maxLength: 200 },
  { path: ['outcome', 'prUrl'], maxLength: 500 },
  { path: ['outcome', 'prs', '[]', 'prUrl'], maxLength: 500 },
];
/** The same bound for a `pr_linked` event's `data.prUrl`, which the schema leaves as an open object. */
export const EVENT_PR_URL_MAX = 500;

type Node = Record<string, unknown>;

function schemaNode(schema: Node, path: readonly string[]): Node {
  let node: Node | undefined = schema;
  for (const key of path)
    node = (key === '[]' ? node?.items : (node?.properties as Node | undefined)?.[key]) as Node | undefined;
  if (!node) throw new Error(`AgentSession schema has no ${path.join('.')}`);
  return node;
}

function narrowed(schema: Node): Node {
  const copy = withNumberBounds(structuredClone(schema));
  for (const path of INT32_FIELDS) schemaNode(copy, path).maximum = INT32_MAX;
  for (const { path, maxLength } of STRING_BOUNDS) schemaNode(copy, path).maxLength = maxLength;
  return copy;
}

// strictNumbers: NaN and ±Infinity (JSON 1e999) are not numbers here either.
const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: true, strictNumbers: true });
// Every turn's and event's timestamp is a date-time: checked without allocating, same accepted set (formats.ts).
addFormats(ajv);
const validator = ajv.compile(narrowed(AGENT_SESSION_V1_SCHEMA as unknown as Node) as AnySchema);

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.replace(/^\//, '').replace(/\//g, '.') : '(session)';
  if (error.keyword === 'required')
    return `${where === '(session)' ? '' : `${where}.`}${String(error.params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties')
    return `${where}.${String(error.params.additionalProperty)} is not a known field`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

export type SessionCheck = { ok: true; session: AgentSessionV1 } | { ok: false; reason: string };

/**
 * What the fixture schema (kept verbatim) cannot say: the additive `usage.cacheCreate1h` of API.md §10, when
 * present, is an integer from 0 to the turn's `cacheCreate`; a `pr_linked` event's `data.prUrl` and
 * `data.prNumber` are bounded as the outcome's are (STRING_BOUNDS, INT32_FIELDS): its PR is kept in the same
 * columns (a prNumber of 2^31 answered 500 for the whole sync on PostgreSQL).
 */
function checkAdditions(session: AgentSessionV1): string | null {
  for (const [i, event] of session.events.entries()) {
    if (event.type !== 'pr_linked') continue;
    const { prUrl, prNumber } = (event.data ?? {}) as { prUrl?: unknown; prNumber?: unknown };
    // Counted in code points, as the schema's maxLength is.
    if (typeof prUrl === 'string' && prUrl.length > EVENT_PR_URL_MAX && [...prUrl].length > EVENT_PR_URL_MAX)
      return `events.${i}.data.prUrl must NOT have more than ${EVENT_PR_URL_MAX} characters`;
    // The PR it names is kept as an integer column, as the outcome's prNumber is (INT32_FIELDS).
    if (typeof prNumber === 'number' && Number.isInteger(prNumber) && prNumber > INT32_MAX)
      return `events.${i}.data.prNumber must be <= ${INT32_MAX}`;
  }
  for (const [i, turn] of session.turns.entries()) {
    const usage = turn.usage;
    if (!usage || !('cacheCreate1h' in usage)) continue;
    const h = usage.cacheCreate1h;
    if (typeof h !== 'number' || !Number.isSafeInteger(h) || h < 0)
      return `turns.${i}.usage.cacheCreate1h must be a non-negative integer`;
    if (h > usage.cacheCreate)
      return `turns.${i}.usage.cacheCreate1h must not exceed cacheCreate (${usage.cacheCreate})`;
  }
  return null;
}

export function checkSession(value: unknown): SessionCheck {
  if (validator(value)) {
    const session = value as AgentSessionV1;
    const problem = checkAdditions(session);
    return problem ? { ok: false, reason: problem } : { ok: true, session };
  }
  const first = validator.errors?.[0];
  return { ok: false, reason: first ? describe(first) : 'does not match AgentSession v1' };
}
