// `attest admin ...`: operator commands. Each calls one /v1/admin route with the admin token and prints
// the answer as a short human line, or the whole `data` object with --json.
import type { Command } from 'commander';
import { mintPlaintext } from '../server/credentials.js';
import { ApiClientError, AttestClient, unwrap, type Body } from '../client/index.js';

type Plan = Body<'/v1/admin/orgs/{orgName}', 'patch'>['plan'];
type Role = Body<'/v1/admin/orgs/{orgName}/members', 'post'>['role'];
type Permission = Body<'/v1/admin/orgs/{orgName}/management-keys', 'post'>['permissions'][number];

interface AdminGlobals {
  url?: string;
  token?: string;
  json?: boolean;
}

function globalsOf(cmd: Command): Required<Pick<AdminGlobals, 'url' | 'token'>> & { json: boolean } {
  const opts = cmd.optsWithGlobals<AdminGlobals>();
  const url = (opts.url ?? process.env.ATTEST_URL ?? 'http://localhost:8787').replace(/\/+$/, '');
  const token = opts.token ?? process.env.ATTEST_ADMIN_TOKEN;
  if (!token)
    throw new Error(
      'an admin token is needed: pass --token or set ATTEST_ADMIN_TOKEN (it is in bootstrap.json after the first boot)',
    );
  return { url, token, json: Boolean(opts.json) };
}

/** The API client with the admin token (admin routes name no factory). */
function adminApi(cmd: Command) {
  const { url, token } = globalsOf(cmd);
  return new AttestClient({ url, token }).api;
}

function print(cmd: Command, data: unknown, human: (d: Record<string, unknown>) => string): void {
  const { json } = globalsOf(cmd);
  const out = json ? JSON.stringify(data ?? null, null, 2) : human((data ?? {}) as Record<string, unknown>);
  process.stdout.write(`${out}\n`);
}

/** Wraps an action so an API error prints `attest: <message>` and exits non-zero. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const message =
        err instanceof ApiClientError && err.status !== 0
          ? `${err.status} ${err.code}: ${err.message}`
          : err instanceof Error
            ? err.message
            : String(err);
      const cmd = args[args.length - 1] as Command;
      if (cmd.optsWithGlobals<AdminGlobals>().json && err instanceof ApiClientError) {
        process.stdout.write(
          `${JSON.stringify({ error: { status: err.status, code: err.code, message } }, null, 2)}\n`,
        );
      }
      process.stderr.write(`attest: ${message}\n`);
      process.exitCode = 1;
    }
  };
}

export function registerAdmin(program: Command): void {
  const admin = program
    .command('admin')
    .description('Operator commands (admin token from --token or ATTEST_ADMIN_TOKEN; gateway from --url or ATTEST_URL)')
    .option('--url <url>', 'gateway URL (env ATTEST_URL, default http://localhost:8787)')
    .option('--token <token>', 'admin token, ola_... (env ATTEST_ADMIN_TOKEN)')
    .option('--json', 'print the answer as JSON');

  // Flag values (plan, role, permissions) go as typed: the gateway checks them, and its 400 says which it takes.
  admin
    .command('new-token')
    .description('Print a fresh admin token to use as ATTEST_ADMIN_TOKEN (nothing is stored)')
    .action(() => {
      process.stdout.write(`${mintPlaintext('admin_token')}\n`);
    });

  const org = admin.command('org').description('Organizations');
  org
    .command('create <name>')
    .option('--plan <plan>', 'free, paid or enterprise', 'free')
    .action(
      action(async (name: string, opts: { plan: string }, cmd: Command) => {
        const { data } = await unwrap(
          adminApi(cmd).POST('/v1/admin/orgs', { body: { name, plan: opts.plan as Plan } }),
        );
        print(cmd, data, (d) => `created org ${String(d.name)} (${String(d.id)}), plan ${String(d.plan)}`);
      }),
    );
  org.command('set-plan <name> <plan>').action(
    action(async (name: string, plan: string, _opts: unknown, cmd: Command) => {
      const { data } = await unwrap(
        adminApi(cmd).PATCH('/v1/admin/orgs/{orgName}', {
          params: { path: { orgName: name } },
          body: { plan: plan as Plan },
        }),
      );
      print(cmd, data, (d) => `org ${String(d.name)} is now on plan ${String(d.plan)}`);
    }),
  );

  const user = admin.command('user').description('Users');
  user
    .command('create <email>')
    .requiredOption('--name <name>', 'display name')
    .action(
      action(async (email: string, opts: { name: string }, cmd: Command) => {
        const { data } = await unwrap(adminApi(cmd).POST('/v1/admin/users', { body: { email, name: opts.name } }));
        print(cmd, data, (d) => `created user ${String(d.email)} (${String(d.id)})`);
      }),
    );
  user
    .command('login-token <userId>')
    .description('Mint a CLI login token (olu_) for a user; shown once')
    .action(
      action(async (userId: string, _opts: unknown, cmd: Command) => {
        const { data } = await unwrap(
          adminApi(cmd).POST('/v1/admin/users/{userId}/login-tokens', { params: { path: { userId } } }),
        );
        print(cmd, data, (d) => String(d.token));
      }),
    );

  const member = admin.command('member').description('Memberships');
  member
    .command('add <org> <userId>')
    .requiredOption('--role <role>', 'owner, admin, write or read')
    .action(
      action(async (orgName: string, userId: string, opts: { role: string }, cmd: Command) => {
        const { data } = await unwrap(
          adminApi(cmd).POST('/v1/admin/orgs/{orgName}/members', {
            params: { path: { orgName } },
            body: { userId, role: opts.role as Role },
          }),
        );
        print(cmd, data, (d) => `${String(d.email)} is now ${String(d.role)} in ${orgName}`);
      }),
    );
  member.command('remove <org> <userId>').action(
    action(async (orgName: string, userId: string, _opts: unknown, cmd: Command) => {
      await adminApi(cmd).DELETE('/v1/admin/orgs/{orgName}/members/{userId}', {
        params: { path: { orgName, userId } },
      });
      print(cmd, { removed: true, org: orgName, userId }, () => `removed ${userId} from ${orgName}`);
    }),
  );

  admin
    .command('management-key <org>')
    .description('Mint an org management key (olk_); shown once')
    .requiredOption('--name <name>', 'key name')
    .requiredOption('--created-by <userId>', 'the member the key acts for')
    .requiredOption('--permissions <list>', 'comma-separated, e.g. members.read,members.write,audit.read')
    .action(
      action(async (orgName: string, opts: { name: string; createdBy: string; permissions: string }, cmd: Command) => {
        const permissions = opts.permissions
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
        const { data } = await unwrap(
          adminApi(cmd).POST('/v1/admin/orgs/{orgName}/management-keys', {
            params: { path: { orgName } },
            body: { name: opts.name, createdBy: opts.createdBy, permissions: permissions as Permission[] },
          }),
        );
        print(cmd, data, (d) => String(d.key));
      }),
    );

  admin
    .command('app <org> <name>')
    .description('Create a factory (app) in an organization')
    .option('--display-name <text>', 'shown in the dashboard')
    .action(
      action(async (orgName: string, name: string, opts: { displayName?: string }, cmd: Command) => {
        const { data } = await unwrap(
          adminApi(cmd).POST('/v1/admin/orgs/{orgName}/apps', {
            params: { path: { orgName } },
            body: { name, ...(opts.displayName ? { display_name: opts.displayName } : {}) },
          }),
        );
        print(cmd, data, (d) => `created factory ${String(d.name)} (${String(d.id)}) in ${orgName}`);
      }),
    );
}
