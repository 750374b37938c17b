// `attest login`, `attest logout`, `attest whoami`.
import type { Command } from 'commander';
import { AttestClient, ApiClientError, type Factory } from '../client/index.js';
import { action, printJson } from './output.js';
import {
  CliError,
  credentialKind,
  maskToken,
  readProfile,
  resolveProfile,
  writeProfile,
  profilePath,
  clientFor,
} from './profile.js';

interface LoginFlags {
  url: string;
  token?: string;
  apiKey?: string;
  appId?: string;
  json?: boolean;
}

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('Store the gateway URL, a credential and the factory to use (profile file, mode 0600)')
    .requiredOption('--url <url>', 'gateway URL, e.g. https://attest.example.com')
    .option('--token <token>', 'a CLI login token (acts as you; pick the factory with --app-id)')
    .option('--api-key <key>', 'a factory API key (needs --app-id)')
    .option('--app-id <id>', 'the factory id (X-Outerlayer-App-Id)')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (flags: LoginFlags) => {
        const token = flags.token ?? flags.apiKey;
        if (!token || (flags.token && flags.apiKey))
          throw new CliError('Give exactly one of --token olu_... or --api-key sk_...');
        if (flags.token && !flags.token.startsWith('olu_'))
          throw new CliError('--token takes a login token (olu_...); use --api-key for a factory key.');
        const url = parseGatewayUrl(flags.url);
        const base = url.toString().replace(/\/+$/, '');
        let appId = flags.appId;
        let factories: Factory[] | undefined;
        if (flags.token) {
          // A login token can list its factories: this checks the token and lets us pick the only one.
          factories = await new AttestClient({ url: base, token }).myFactories();
          if (appId && !factories.some((f) => f.id === appId))
            throw new CliError(
              `Factory ${appId} is not one of yours: ${factories.map((f) => `${f.id} (${f.org.name}/${f.name})`).join(', ') || 'none'}`,
            );
          if (!appId) {
            if (factories.length === 1) appId = factories[0]!.id;
            else
              throw new CliError(
                `You belong to ${factories.length} factories; pick one with --app-id:\n${factories.map((f) => `  ${f.id}  ${f.org.name}/${f.name} (${f.role})`).join('\n')}`,
              );
          }
        } else {
          if (!appId) throw new CliError('A factory API key needs --app-id (the factory it belongs to).');
          await checkFactoryKey(base, token, appId);
        }
        const stored = readProfile();
        const keepItemKeys = stored.url === base && stored.appId === appId ? stored.itemKeys : undefined;
        const file = writeProfile({ url: base, token, appId, ...(keepItemKeys ? { itemKeys: keepItemKeys } : {}) });
        const factory = factories?.find((f) => f.id === appId);
        if (flags.json)
          printJson({ url: base, credential: credentialKind(token), appId, factory: factory ?? null, profile: file });
        else
          process.stdout.write(
            `Logged in to ${base} with a ${credentialKind(token)}; factory ${appId}${factory ? ` (${factory.org.name}/${factory.name}, ${factory.role})` : ''}.\nProfile: ${file}\n`,
          );
      }),
    );

  program
    .command('logout')
    .description('Forget the stored credential and item keys')
    .action(
      action(async () => {
        const stored = readProfile();
        writeProfile({ ...(stored.url ? { url: stored.url } : {}) });
        process.stdout.write(`Credential removed from ${profilePath()}.\n`);
      }),
    );

  program
    .command('whoami')
    .description('Show the gateway, credential and factory in use')
    .option('--json', 'print as JSON')
    .action(
      action(async (flags: { json?: boolean }) => {
        const profile = resolveProfile(process.env, { needAppId: false });
        const client = clientFor(profile);
        const info: Record<string, unknown> = {
          url: profile.url,
          credential: credentialKind(profile.token),
          token: maskToken(profile.token),
          appId: profile.appId ?? null,
          source: {
            url: process.env.ATTEST_URL ? 'env' : 'profile',
            token: process.env.ATTEST_API_KEY ? 'env' : 'profile',
            appId: process.env.ATTEST_APP_ID ? 'env' : 'profile',
          },
        };
        if (profile.token.startsWith('olu_')) {
          const factories = await client.myFactories();
          const current = factories.find((f) => f.id === profile.appId);
          info.factory = current ?? null;
          info.factories = factories;
        } else {
          info.factory = await factoryOfKey(client, profile.appId);
        }
        if (flags.json) {
          printJson(info);
          return;
        }
        const f = info.factory as (Partial<Factory> & { name?: string }) | null;
        const out = [
          `Gateway:    ${profile.url}`,
          `Credential: ${String(info.credential)} ${String(info.token)}`,
          `Factory:    ${profile.appId ?? '(none)'}${f?.name ? ` (${f.org?.name ? `${f.org.name}/` : ''}${f.name}${f.role ? `, ${f.role}` : ''})` : ''}`,
        ];
        const others = (info.factories as Factory[] | undefined)?.filter((x) => x.id !== profile.appId) ?? [];
        if (others.length > 0)
          out.push(`Also yours: ${others.map((x) => `${x.org.name}/${x.name} (${x.id})`).join(', ')}`);
        process.stdout.write(`${out.join('\n')}\n`);
      }),
    );
}

/** A factory key is checked by reading its factory: 401 = bad key or wrong factory; 403 = valid, lacks apps.read. */
async function checkFactoryKey(url: string, token: string, appId: string): Promise<void> {
  await factoryOfKey(new AttestClient({ url, token, appId }), appId);
}

async function factoryOfKey(client: AttestClient, appId: string | undefined): Promise<Record<string, unknown> | null> {
  if (!appId) return null;
  try {
    return await client.getFactory(appId);
  } catch (err) {
    if (err instanceof ApiClientError && err.status === 403) return { id: appId };
    throw err;
  }
}

/** The gateway URL of `--url`: http or https only, so `localhost:8787` gets a hint instead of "Is the gateway running?". */
export function parseGatewayUrl(value: string): URL {
  const hint = `--url needs http:// or https:// (e.g. http://${value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')})`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
        ? `--url "${value}" is not a URL`
        : `--url "${value}" has no scheme: ${hint}`,
    );
  }
  // new URL('localhost:8787') parses, with "localhost:" as its scheme.
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`--url "${value}" is not an http or https URL: ${hint}`);
  return url;
}
