// `attest dashboard`: a fresh one-time dashboard sign-in link for the logged-in user, printed, and opened in
// the browser when there is a desktop (macOS, or DISPLAY / WAYLAND_DISPLAY set). Opening is best effort: a
// missing or failing opener never fails the command, the printed link is the result.
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { action, printJson } from './output.js';
import { CliError, clientFor, credentialKind, resolveProfile } from './profile.js';

interface DashboardFlags {
  open?: boolean;
  json?: boolean;
}

/** The command that opens a URL on this desktop, or null when there is none. */
export function opener(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | null {
  if (platform === 'darwin') return 'open';
  if (platform === 'win32') return null;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : null;
}

/**
 * Starts the opener detached and waits up to 3 s for it: true when it exited 0 (or is still running, as some
 * openers stay until the browser closes), false on any failure. Never throws.
 */
export function openInBrowser(command: string, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [url], { stdio: 'ignore', detached: true });
      const timer = setTimeout(() => {
        child.unref();
        resolve(true);
      }, 3000);
      child.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
    } catch {
      resolve(false);
    }
  });
}

export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description('Print (and on a desktop, open) a one-time sign-in link to the web dashboard, valid 10 minutes')
    .option('--no-open', 'only print the link, never open a browser')
    .option('--json', 'print { url, expiresAt } as JSON')
    .action(
      action(async (flags: DashboardFlags) => {
        const profile = resolveProfile(process.env, { needAppId: false });
        if (!profile.token.startsWith('olu_')) {
          throw new CliError(
            `attest dashboard needs a login token (you are logged in with a ${credentialKind(profile.token)}); run ` +
              `\`attest login --url ${profile.url} --token olu_...\`.`,
          );
        }
        const link = await clientFor(profile).createDashboardLink();
        const command = flags.open === false ? null : opener();
        const opened = command ? await openInBrowser(command, link.url) : false;
        if (flags.json) {
          printJson({ ...link, opened });
          return;
        }
        process.stdout.write(
          `Sign in to the dashboard (one-time link, valid until ${link.expiresAt}):\n  ${link.url}\n`,
        );
        if (opened) process.stdout.write('Opened it in your browser.\n');
        else if (command) process.stdout.write(`Could not open a browser (${command}); open the link yourself.\n`);
      }),
    );
}
