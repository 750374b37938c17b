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
  ['chunk', 'of'], ['chunk', 'part'],
  ['outcome', 'prNumber'], ['outcome', 'prs', '[]', 'prNumber'],
  ['turns', '[]', 'index'], ['events', '[]', 'seq'], ['events', '[]', 'turnIndex'],
  ['turns', '[]', 'usage', 'in'], ['turns', '[]', 'usage', 'out'], ['turns', '[]', 'usage', 'cacheRead'], ['turns', '[]', 'usage', 'cacheCreate'],
];

type Node = Record<string, unknown>;

function narrowed(schema: Node): Node {
  const copy = withNumberBounds(structuredClone(schema));
  for (const path of INT32_FIELDS) {
    let node: Node | undefined = copy;
    for (const key of path) node = (key === '[]' ? node?.items : (node?.properties as Node | undefined)?.[key]) as Node | undefined;
    if (!node) throw new Error(`AgentSession schema has no ${path.join('.')}`);
    node.maximum = INT32_MAX;
  }
  return copy;
}

// strictNumbers: NaN and ±Infinity (JSON 1e999) are not numbers here either.
const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: true, strictNumbers: true });
// Every turn's and event's timestamp is a date-time: checked without allocating, same accepted set (formats.ts).
addFormats(ajv);
const validator = ajv.compile(narrowed(AGENT_SESSION_V1_SCHEMA as unknown as Node) as AnySchema);

function describe(error: ErrorObject): string {
  const where = error.instancePath ? error.instancePath.replace(/^\//, '').replace(/\//g, '.') : '(session)';
  if (error.keyword === 'required') return `${where === '(session)' ? '' : `${where}.`}${String(error.params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties') return `${where}.${String(error.params.additionalProperty)} is not a known field`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

export type SessionCheck = { ok: true; session: AgentSessionV1 } | { ok: false; reason: string };

/**
 * What the fixture schema (kept verbatim) cannot say about the additive `usage.cacheCreate1h` of API.md §10:
 * when present it is an integer from 0 to the turn's `cacheCreate`.
 */
function checkAdditions(session: AgentSessionV1): string | null {
  for (const [i, turn] of session.turns.entries()) {
    const usage = turn.usage;
    if (!usage || !('cacheCreate1h' in usage)) continue;
    const h = usage.cacheCreate1h;
    if (typeof h !== 'number' || !Number.isSafeInteger(h) || h < 0) return `turns.${i}.usage.cacheCreate1h must be a non-negative integer`;
    if (h > usage.cacheCreate) return `turns.${i}.usage.cacheCreate1h must not exceed cacheCreate (${usage.cacheCreate})`;
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
