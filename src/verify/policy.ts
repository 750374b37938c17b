// The repository's policy: `.attest/policy.yaml` sets each validator's level, `.attest/validators/*.yaml`
// declares the repository's own validators as data. Text in, Policy out: a file that cannot be read becomes
// one error naming the file and the problem (with its line and column), and is otherwise ignored.
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import { BUILTIN_VALIDATORS, defaultPolicy } from './constants.js';
import type { CustomValidator, Policy, PolicyError, PolicyLevel } from './schema.js';

export const POLICY_FILE = '.attest/policy.yaml';
export const VALIDATORS_DIR = '.attest/validators/';

const LEVELS: readonly string[] = ['off', 'info', 'warn', 'block'];
const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

class Problem extends Error {}

interface Reader {
  doc: Document;
  lines: LineCounter;
}

function where(r: Reader, node: unknown): string {
  const range = (node as Node | undefined)?.range;
  if (!range) return '';
  const pos = r.lines.linePos(range[0]);
  return `line ${pos.line}, column ${pos.col}: `;
}

function read(text: string): Reader {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    const at = pos ? `line ${pos.line}, column ${pos.col}: ` : '';
    const first = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new Problem(`${at}${first}`);
  }
  return { doc, lines };
}

function stringList(r: Reader, node: unknown, label: string): string[] {
  if (node === undefined || node === null) return [];
  if (isScalar(node) && typeof node.value === 'string') return [node.value];
  if (!isSeq(node)) throw new Problem(`${where(r, node)}${label} must be a list of strings`);
  return node.items.map((item) => {
    if (!isScalar(item) || typeof item.value !== 'string' || item.value.trim() === '') {
      throw new Problem(`${where(r, item)}${label} must be a list of strings`);
    }
    return item.value;
  });
}

function level(r: Reader, node: unknown, label: string): PolicyLevel {
  // YAML 1.2 reads `off` as a string; `false` (or YAML 1.1's `off`) is accepted as off too.
  const value = isScalar(node) ? (node.value === false ? 'off' : node.value) : undefined;
  if (typeof value !== 'string' || !LEVELS.includes(value)) {
    throw new Problem(`${where(r, node)}${label} must be one of off, info, warn, block`);
  }
  return value as PolicyLevel;
}

function mapEntries(
  r: Reader,
  node: unknown,
  label: string,
  allowed: readonly string[],
): Map<string, { key: unknown; value: unknown }> {
  if (!isMap(node)) throw new Problem(`${where(r, node)}${label} must be a mapping`);
  const out = new Map<string, { key: unknown; value: unknown }>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) throw new Problem(`${where(r, pair.key)}${label} has a key that is not a name`);
    if (allowed.length > 0 && !allowed.includes(key)) {
      throw new Problem(`${where(r, pair.key)}unknown key "${key}" in ${label} (expected ${allowed.join(', ')})`);
    }
    out.set(key, { key: pair.key, value: pair.value });
  }
  return out;
}

function readPolicyFile(text: string, customNames: ReadonlySet<string>): Record<string, PolicyLevel> {
  const r = read(text);
  if (r.doc.contents === null) return {};
  const top = mapEntries(r, r.doc.contents, 'the policy', ['validators', 'version']);
  const validators = top.get('validators');
  if (!validators || validators.value === null) return {};
  const levels: Record<string, PolicyLevel> = {};
  for (const [id, { key, value }] of mapEntries(r, validators.value, 'validators', [])) {
    const known =
      (BUILTIN_VALIDATORS as readonly string[]).includes(id) ||
      (id.startsWith('custom:') && customNames.has(id.slice(7)));
    if (!known) throw new Problem(`${where(r, key)}unknown validator "${id}"`);
    levels[id] = level(r, value, id);
  }
  return levels;
}

function readValidatorFile(path: string, text: string): CustomValidator {
  const r = read(text);
  const stem = path.slice(path.lastIndexOf('/') + 1).replace(/\.ya?ml$/, '');
  const top = mapEntries(r, r.doc.contents, 'the validator', ['name', 'description', 'level', 'when', 'require']);
  const nameNode = top.get('name')?.value;
  const name = nameNode === undefined ? stem : isScalar(nameNode) ? String(nameNode.value) : '';
  if (!NAME.test(name))
    throw new Problem(`${where(r, nameNode)}name must be lowercase letters, digits, ".", "_" or "-"`);
  const descNode = top.get('description')?.value;
  const description = isScalar(descNode) && typeof descNode.value === 'string' ? descNode.value : undefined;
  const lvl = top.has('level') ? level(r, top.get('level')!.value, 'level') : 'warn';
  const when = top.get('when')?.value;
  const paths =
    when === undefined || when === null
      ? []
      : stringList(r, mapEntries(r, when, 'when', ['paths']).get('paths')?.value, 'when.paths');
  const req = top.get('require')?.value;
  if (req === undefined || req === null)
    throw new Problem('require is missing: say what must have happened (ran, emitted, artifact)');
  const reqs = mapEntries(r, req, 'require', ['ran', 'emitted', 'artifact']);
  const ran = stringList(r, reqs.get('ran')?.value, 'require.ran');
  const emitted = stringList(r, reqs.get('emitted')?.value, 'require.emitted');
  const artifact = stringList(r, reqs.get('artifact')?.value, 'require.artifact');
  if (ran.length + emitted.length + artifact.length === 0) throw new Problem(`${where(r, req)}require names nothing`);
  const v: CustomValidator = { name, file: path, level: lvl, paths, ran, emitted, artifact };
  if (description !== undefined) v.description = description;
  return v;
}

/** Reads the policy files (repository paths); never throws. Files are taken in path order. */
export function parsePolicy(files: { path: string; text: string }[]): Policy {
  const errors: PolicyError[] = [];
  const custom: CustomValidator[] = [];
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const f of sorted) {
    if (!f.path.startsWith(VALIDATORS_DIR)) continue;
    try {
      const v = readValidatorFile(f.path, f.text);
      if (custom.some((c) => c.name === v.name)) throw new Problem(`a validator named "${v.name}" is already declared`);
      custom.push(v);
    } catch (e) {
      errors.push({ file: f.path, message: e instanceof Error ? e.message : String(e) });
    }
  }
  const { levels } = defaultPolicy();
  for (const v of custom) levels[`custom:${v.name}`] = v.level;
  const policyFile = sorted.find((f) => f.path === POLICY_FILE || f.path === '.attest/policy.yml');
  if (policyFile) {
    try {
      Object.assign(levels, readPolicyFile(policyFile.text, new Set(custom.map((c) => c.name))));
    } catch (e) {
      errors.push({ file: policyFile.path, message: e instanceof Error ? e.message : String(e) });
    }
  }
  errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { levels, custom, errors };
}
