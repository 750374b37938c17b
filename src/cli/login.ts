// `attest login`, `attest logout`, `attest whoami`.
import type { Command } from 'commander';
import { deviceLogin, loopbackLogin } from './browser-login.js';
import { openInBrowser, opener } from './dashboard.js';
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
  device?: boolean;
  open?: boolean;
  json?: boolean;
}

/** Lines for the person during a browser sign-in: stderr when stdout is the --json answer. */
function printer(json: boolean | undefined) {
  return (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
}

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description(
      'Sign in and store the gateway URL, a credential and the factory to use (profile file, mode 0600); ' +
        'with no --token or --api-key, sign in through the browser',
    )
    .requiredOption('--url <url>', 'gateway URL, e.g. https://attest.example.com')
    .option('--token <token>', 'a CLI login token (acts as you; pick the factory with --app-id)')
    .option('--api-key <key>', 'a factory API key (needs --app-id)')
    .option('--app-id <id>', 'the factory id (X-Outerlayer-App-Id)')
    .option('--device', 'sign in with a code confirmed on any signed-in browser (for SSH sessions)')
    .option('--no-open', 'only print the sign-in link, never open a browser')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (flags: LoginFlags) => {
        if (flags.token && flags.apiKey)
          throw new CliError('Give one of --token olu_... or --api-key sk_..., not both.');
        if (flags.token && !flags.token.startsWith('olu_'))
          throw new CliError('--token takes a login token (olu_...); use --api-key for a factory key.');
        if (flags.device && (flags.token || flags.apiKey))
          throw new CliError('--device signs in through the browser: leave out --token and --api-key.');
        const url = parseGatewayUrl(flags.url);
        const base = url.toString().replace(/\/+$/, '');
        let viaBrowser = false;
        let loginToken = flags.token;
        if (!flags.token && !flags.apiKey) {
          const print = printer(flags.json);
          const command = flags.open === false ? null : opener();
          const signedIn = flags.device
            ? await deviceLogin({ url: base, print })
            : await loopbackLogin({
                url: base,
                print,
                ...(command ? { open: (page: string) => openInBrowser(command, page) } : {}),
              });
          print(`Signed in as ${signedIn.user.email}; new login token "${signedIn.name}".`);
          loginToken = signedIn.token;
          viaBrowser = true;
        }
        const token = (loginToken ?? flags.apiKey) as string;
        let appId = flags.appId;
        let factories: Factory[] | undefined;
        if (loginToken) {
          // A login token can list its factories: this checks the token and lets us pick the only one.
          factories = await new AttestClient({ url: base, token }).myFactories();
          if (appId && !factories.some((f) => f.id === appId))
            throw new CliError(
              `Factory ${appId} is not one of yours: ` +
                `${factories.map((f) => `${f.id} (${f.org.name}/${f.name})`).join(', ') || 'none'}`,
            );
          if (!appId && viaBrowser && factories.length !== 1) {
            // The token is new and is the person's now: keep it, and let them choose the factory after.
            const file = writeProfile({ url: base, token });
            const list = factories.map((f) => `  ${f.id}  ${f.org.name}/${f.name} (${f.role})`).join('\n');
            if (flags.json) printJson({ url: base, credential: 'login token', appId: null, factories, profile: file });
            else {
              const next =
                factories.length === 0
                  ? 'you belong to no factory yet'
                  : `choose a factory with ATTEST_APP_ID, or run attest login again with --app-id:\n${list}`;
              process.stdout.write(`Logged in to ${base} with a login token; ${next}\nProfile: ${file}\n`);
            }
            return;
          }
          if (!appId) {
            if (factories.length === 1) appId = factories[0]!.id;
            else
              throw new CliError(
                `You belong to ${factories.length} factories; pick one with --app-id:\n` +
                  `${factories.map((f) => `  ${f.id}  ${f.org.name}/${f.name} (${f.role})`).join('\n')}`,
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
            `Logged in to ${base} with a ${credentialKind(token)}; factory ${appId}` +
              `${factory ? ` (${factory.org.name}/${factory.name}, ${factory.role})` : ''}.\nProfile: ${file}\n`,
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
          `Factory:    ${profile.appId ?? '(none)'}` +
            `${f?.name ? ` (${f.org?.name ? `${f.org.name}/` : ''}${f.name}${f.role ? `, ${f.role}` : ''})` : ''}`,
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

/**
 * The gateway URL of `--url`: http or https only, so `localhost:8787` gets a hint instead of "Is the gateway running?".
 */
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
