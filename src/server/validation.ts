// Request validation with two ajv instances: query strings, path parameters and headers arrive as text, so
// they are coerced to the schema's types ("25" → 25); JSON bodies are not, so a null stays null and
// `false` is never accepted as the string "false".
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property of what is imported.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

const COMMON: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

function build(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...COMMON, coerceTypes });
  addFormats(ajv);
  return ajv;
}

export function requestValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const bodies = build(false);
  const text = build('array');
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodies : text).compile(schema as object);
}
