// Test helpers shared by the capture and CLI tests: where the fixtures live, and the AgentSession v1 schema
// compiled with ajv (a transitive dependency of fastify) so documents are checked against the real schema.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export const FIXTURES = fileURLToPath(new URL('../fixtures/outerlayer-session-schema/', import.meta.url));
export const RAW_DIR = `${FIXTURES}raw/`;
export const CANONICAL_DIR = `${FIXTURES}canonical/`;

export function rawFixtureNames(): string[] {
  return fs
    .readdirSync(RAW_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
}

export function readRaw(name: string): string {
  return fs.readFileSync(`${RAW_DIR}${name}`, 'utf8');
}

export function readCanonical(name: string): unknown {
  return JSON.parse(fs.readFileSync(`${CANONICAL_DIR}${name}`, 'utf8')) as unknown;
}

const schema = JSON.parse(fs.readFileSync(`${FIXTURES}agent-session.v1.schema.json`, 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS; its default export arrives wrapped or bare depending on the loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv2020,
) => void;
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema's complaints about `doc`, empty when it is a valid AgentSession v1. */
export function schemaErrors(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
