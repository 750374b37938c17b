// Secret scrubbing, applied to every string of a session at every tier (metrics included): a path, a
// branch name or an error line can carry a credential just as well as message text can.

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

/** Field names whose string values are secrets whatever they look like (tool inputs, vendor blobs). */
const SECRET_KEY = new RegExp(
  '^(?:api[_-]?key|apikey|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|auth[_-]?token|' +
    'password|passwd|authorization|private[_-]?key)$',
  'i',
);

export function scrubString(text: string): string {
  let out = text;
  for (const p of PATTERNS) {
    out = out.replace(p.re, (...m: unknown[]) => {
      const kept = p.keepGroup ? String(m[p.keepGroup] ?? '') : '';
      return `${kept}[REDACTED:${p.kind}]`;
    });
  }
  return out;
}

/** A deep copy of `value` with every string scrubbed and secret-named fields blanked. */
export function scrubDeep<T>(value: T): T {
  return scrubValue(value) as T;
}

function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = typeof v === 'string' && SECRET_KEY.test(k) && v.length > 0 ? '[REDACTED:named_secret]' : scrubValue(v);
    }
    return out;
  }
  return value;
}
