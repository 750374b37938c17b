// Issue 45: a session without a title of its own gets one derived at ingest (src/areas/sessions/title.ts), so no
// list shows an id in its place. This gives the stored untitled sessions theirs, from their stored documents. A
// migration imports nothing of the application (docs/architecture.md): the document decoding, the title rule and
// the secret patterns it applies are frozen copies of those of this release, so the migration means the same
// thing forever. The title-search rows follow through the triggers of migration 0003d (SQLite) and the trigram
// index on the title itself (PostgreSQL). One pass over the untitled rows, 500 at a time.
import zlib from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

interface Doc {
  title?: unknown;
  agent: { type: string };
  env: { gitBranch?: unknown };
  turns: { role: string; source?: string; text?: unknown }[];
}

const TITLE_MAX_CHARS = 80;

function decode(encoding: string, body: Uint8Array | ArrayBuffer): Doc {
  const buf =
    body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const raw = encoding === 'br' ? zlib.brotliDecompressSync(buf) : encoding === 'gzip' ? zlib.gunzipSync(buf) : buf;
  return JSON.parse(raw.toString('utf8')) as Doc;
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (
      await sql<{ id: string }>`select id from sessions
        where (title is null or title = '') and id > ${after} order by id limit 500`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const docs = (
      await sql<{
        session_id: string;
        encoding: string;
        body: Uint8Array;
      }>`select session_id, encoding, body from session_documents
        where session_id in (${sql.join(rows.map((r) => r.id))})`.execute(db)
    ).rows;
    for (const d of docs) {
      const title = sessionTitle(decode(d.encoding, d.body));
      await sql`update sessions set title = ${title} where id = ${d.session_id}`.execute(db);
    }
  }
}

// ---- frozen copy of src/capture/scrub.ts (patterns and scrubString) ----

interface SecretPattern {
  kind: string;
  re: RegExp;
  /** Keep this capture group (a prefix such as "Bearer " or "api_key=") and redact the rest. */
  keepGroup?: number;
}

const PATTERNS: SecretPattern[] = [
  {
    kind: 'private_key',
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  },
  { kind: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: 'openai_key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'attest_credential', re: /\b(?:sk_outerlayer_|sk_service_|olu_|olk_|oli_|ola_)[A-Za-z0-9]{20,}/g },
  { kind: 'github_token', re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g },
  { kind: 'github_token', re: /\bgithub_pat_[A-Za-z0-9_]{40,}/g },
  { kind: 'slack_token', re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: 'aws_access_key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'stripe_key', re: /\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}/g },
  { kind: 'npm_token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'bearer_token', re: /(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, keepGroup: 1 },
  { kind: 'basic_auth', re: /(\s(?:-u|--user)\s+["']?[^\s:"']+:)[^\s"'@]+/g, keepGroup: 1 },
  { kind: 'url_password', re: /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^@\s/]+(?=@)/gi, keepGroup: 1 },
  {
    kind: 'assigned_secret',
    re: new RegExp(
      String.raw`(\b(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?token|auth[_-]?token|` +
        String.raw`refresh[_-]?token|token|password|passwd|private[_-]?key)["']?\s*[:=]\s*["']?)` +
        String.raw`(?!\[REDACTED)[^\s"',;]{8,}`,
      'gi',
    ),
    keepGroup: 1,
  },
];

function scrubString(text: string): string {
  let out = text;
  for (const p of PATTERNS) {
    out = out.replace(p.re, (...m: unknown[]) => {
      const kept = p.keepGroup ? String(m[p.keepGroup] ?? '') : '';
      return `${kept}[REDACTED:${p.kind}]`;
    });
  }
  return out;
}

// ---- frozen copy of src/areas/sessions/title.ts ----

/**
 * The session's title: the one it was sent with; else, where the tier keeps message text (`full`), the first
 * line of its first prompt from a person (a subagent's transcript has none: the prompt its parent gave it);
 * else its agent, branch and turn count, as "claude-code on fix/parser · 81 turns". Secrets are scrubbed from
 * a title taken from the text, whatever the sender did.
 */
function sessionTitle(doc: Doc): string {
  // A title the sender gave is kept as sent, as it always was (search and exports match it exactly).
  if (typeof doc.title === 'string' && doc.title.trim() !== '') return doc.title;
  const prompt = firstPrompt(doc.turns);
  if (prompt) return prompt;
  return fallbackTitle(doc);
}

/** The agent, the branch where known, and the number of turns. */
function fallbackTitle(doc: Doc): string {
  const turns = doc.turns.length;
  const agent = oneLine(doc.agent.type) || 'agent';
  const branch = typeof doc.env.gitBranch === 'string' ? oneLine(scrubString(doc.env.gitBranch)) : '';
  return cut(`${agent}${branch ? ` on ${branch}` : ''} · ${turns} ${turns === 1 ? 'turn' : 'turns'}`);
}

function firstPrompt(turns: Doc['turns']): string {
  for (const source of ['human', 'peer'] as const) {
    for (const turn of turns) {
      if (turn.role !== 'user' || (turn.source ?? 'human') !== source || typeof turn.text !== 'string') continue;
      const line = firstLine(promptText(turn.text));
      if (line) return cut(scrubString(line));
    }
  }
  return '';
}

/**
 * What the person typed: a slash command is written by Claude Code as tags (`<command-name>/review</command-name>
 * <command-args>#12</command-args>`), read back as `/review #12`; reminders the agent added are not the prompt.
 */
function promptText(text: string): string {
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1]?.trim();
  if (command) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1]?.trim();
    return `${command.startsWith('/') ? command : `/${command}`}${args ? ` ${args}` : ''}`;
  }
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
}

function firstLine(text: string): string {
  for (const line of text.split(/\r?\n/)) {
    const one = oneLine(line);
    if (one) return one;
  }
  return '';
}

/** Whitespace runs (tabs, newlines) as one space, control characters dropped, trimmed, at most TITLE_MAX_CHARS. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return cut(
    text
      .replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** At most TITLE_MAX_CHARS characters (code points, so an emoji is never split), an ellipsis marking a cut. */
function cut(text: string): string {
  const chars = [...text];
  if (chars.length <= TITLE_MAX_CHARS) return text;
  return `${chars
    .slice(0, TITLE_MAX_CHARS - 1)
    .join('')
    .trimEnd()}…`;
}
