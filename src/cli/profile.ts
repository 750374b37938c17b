// The CLI profile: where the gateway is and which credential and factory to use. Stored as JSON in the XDG
// config dir ($XDG_CONFIG_HOME/attest/profile.json, default ~/.config/attest), file mode 0600 because it
// holds credentials (the login token or API key, and the item keys of claimed work items).
// ATTEST_URL, ATTEST_API_KEY and ATTEST_APP_ID override the stored values for one run.
import fs from 'node:fs';
import path from 'node:path';
import { AttestClient } from '../client/index.js';
import { configDir, stateDir } from './capture/paths.js';

export { configDir, stateDir };

export interface ItemKeyEntry {
  itemKey: string;
  workItemId: string;
  number?: number;
  branch: string;
  claimId: string;
  expiresAt: string;
}

export interface Profile {
  url?: string;
  /** A login token (olu_) or a factory API key (sk_...). */
  token?: string;
  appId?: string;
  /** Item keys by work item id, kept after `attest work claim`. */
  itemKeys?: Record<string, ItemKeyEntry>;
}

export interface ResolvedProfile {
  url: string;
  token: string;
  appId: string | undefined;
}

export function profilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'profile.json');
}

export function readProfile(env: NodeJS.ProcessEnv = process.env): Profile {
  const file = profilePath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Profile) : {};
  } catch {
    throw new CliError(`The profile ${file} is not valid JSON; fix it or run attest login again.`);
  }
}

/** Writes the profile atomically with mode 0600 (created 0600, never world-readable for a moment). */
export function writeProfile(profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const file = profilePath(env);
  writePrivateJson(file, profile);
  return file;
}

export function writePrivateJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** The stored profile with the environment's overrides applied; fails with a hint when something is missing. */
export function resolveProfile(
  env: NodeJS.ProcessEnv = process.env,
  opts: { needAppId?: boolean } = {},
): ResolvedProfile {
  const stored = readProfile(env);
  const url = env.ATTEST_URL || stored.url;
  const token = env.ATTEST_API_KEY || stored.token;
  const appId = env.ATTEST_APP_ID || stored.appId;
  if (!url || !token)
    throw new CliError(
      'Not logged in: run `attest login --url URL --token olu_...` (or set ATTEST_URL and ATTEST_API_KEY).',
    );
  if (opts.needAppId !== false && !appId)
    throw new CliError('No factory chosen: run `attest login ... --app-id ID` (or set ATTEST_APP_ID).');
  return { url, token, appId };
}

export function clientFor(profile: ResolvedProfile): AttestClient {
  return new AttestClient({
    url: profile.url,
    token: profile.token,
    ...(profile.appId ? { appId: profile.appId } : {}),
  });
}

/** An error meant for the user: printed as is, exit code 1 (or `exitCode`). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
  }
}

export function credentialKind(token: string): string {
  if (token.startsWith('olu_')) return 'login token';
  if (token.startsWith('oli_')) return 'item key';
  if (token.startsWith('olk_')) return 'management key';
  if (token.startsWith('ola_')) return 'admin token';
  if (token.startsWith('sk_')) return 'factory API key';
  return 'credential';
}

/** Enough of a credential to recognize it, never enough to use it. */
export function maskToken(token: string): string {
  const prefix = /^(?:sk_[a-z]+_|ol[uika]_)/.exec(token)?.[0] ?? '';
  return `${prefix}${token.slice(prefix.length, prefix.length + 4)}…${token.slice(-4)}`;
}
