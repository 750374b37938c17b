// One compiled validator of the AgentSession v1 schema; each session of a sync is checked on its own so one
// bad session is rejected with a reason while the others are accepted.
import { Ajv2020, type AnySchema, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AGENT_SESSION_V1_SCHEMA } from './agent-session-schema.js';
import type { AgentSessionV1 } from '../sessions/document.js';

// ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property of what is imported.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: true });
addFormats(ajv);
const validator = ajv.compile(AGENT_SESSION_V1_SCHEMA as unknown as AnySchema);

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
