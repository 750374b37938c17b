// Output helpers shared by the CLI commands: JSON for scripts, aligned tables for people, and one place that
// turns API errors into a clear message and an exit code.
import { ApiClientError } from '../client/index.js';
import { CliError } from './profile.js';
import { KEY_PRESETS, isPermission, presetPermissions } from '../server/permissions.js';

/** Which credential has `permission`: the key presets that grant it, and a member's login token. */
export function whoCan(permission: string): string {
  const presets = isPermission(permission)
    ? KEY_PRESETS.filter((p) => p === 'full-access' || presetPermissions(p, []).includes(permission))
    : [];
  const keys =
    presets.length > 0
      ? `a factory API key made with the preset ${presets.map((p) => `"${p}"`).join(' or ')} (POST /v1/api-keys with ` +
        `a login token)`
      : 'a factory API key granted it';
  return `${keys}, or a member's login token (\`attest login --url URL --token olu_...\`)`;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(rows: Record<string, unknown>[], columns: { key: string; header: string }[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.header.length, ...rows.map((r) => cell(r[c.key]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(columns.map((c) => c.header))}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c.key])))}\n`);
}

/** A message a person can act on, for any error a command can end with. */
export function describeError(err: unknown): string {
  if (err instanceof CliError) return err.message;
  if (err instanceof ApiClientError) {
    if (err.status === 0) return `${err.message}. Is the gateway running? Check the URL with \`attest whoami\`.`;
    if (err.status === 401)
      return (
        `The gateway refused the credential (401 ${err.code}): it is unknown, revoked or expired, or the factory ` +
        `id does not match it. Run \`attest login\` again.`
      );
    if (err.status === 403) {
      const perm = typeof err.extra.required_permission === 'string' ? err.extra.required_permission : undefined;
      if (!perm) return `Not allowed (403 ${err.code}): ${err.message}`;
      return `Not allowed (403 ${err.code}, needs permission ${perm}): ${err.message} This can: ${whoCan(perm)}.`;
    }
    if (err.status === 426)
      return (
        `This CLI is too old for the gateway (426): upgrade to ${String(err.extra.minimum ?? 'a newer version')}. ` +
        `${String(err.extra.docs ?? '')}`
      ).trim();
    return `${err.status} ${err.code}: ${err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof ApiClientError) {
    if (err.status === 0) return 3;
    if (err.status === 401 || err.status === 403) return 4;
    return 2;
  }
  return 1;
}

/** Wraps a command action: errors are printed (as JSON with --json) and set the exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const json = process.argv.includes('--json');
      const message = describeError(err);
      if (json) {
        const body: Record<string, unknown> = { error: { message } };
        if (err instanceof ApiClientError)
          Object.assign(body.error as object, {
            status: err.status,
            code: err.code,
            ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
          });
        process.stdout.write(`${JSON.stringify(body)}\n`);
      }
      process.stderr.write(`attest: ${message}\n`);
      process.exitCode = exitCodeOf(err);
    }
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
