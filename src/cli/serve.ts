// `attest serve` and `attest migrate`.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { loadConfig } from '../server/config.js';

// The server and the store load only when a command needs them: every other `attest` command starts
// without transpiling and importing the whole gateway.

interface ServeFlags {
  port?: string;
  host?: string;
  dataDir?: string;
}

function envWithFlags(flags: ServeFlags): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(flags.port ? { PORT: flags.port } : {}),
    ...(flags.host ? { HOST: flags.host } : {}),
    ...(flags.dataDir ? { ATTEST_DATA_DIR: flags.dataDir } : {}),
  };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Start the gateway (embedded SQLite in the data dir unless DATABASE_URL is set)')
    .option('-p, --port <port>', 'port to listen on (env PORT, default 8787)')
    .option('--host <host>', 'address to bind (env HOST, default 0.0.0.0)')
    .option('-d, --data-dir <dir>', 'data directory (env ATTEST_DATA_DIR, default ./.attest)')
    .action(async (flags: ServeFlags) => {
      const config = loadConfig(envWithFlags(flags));
      const { buildApp } = await import('../app.js');
      const app = await buildApp({ config });
      const boot = app.attest.bootstrap;
      const out = process.stdout;
      const savedCredentials = path.join(config.dataDir, 'bootstrap.json');
      let address: string;
      try {
        address = await app.listen({ port: config.port, host: config.host });
      } catch (err) {
        await app.close().catch(() => undefined);
        const why =
          (err as NodeJS.ErrnoException).code === 'EADDRINUSE'
            ? `port ${config.port} on ${config.host} is already in use (choose another with --port or PORT)`
            : err instanceof Error
              ? err.message
              : String(err);
        const where = boot.created
          ? ` The first boot created credentials; they were not printed and are saved in ${savedCredentials} (mode ` +
            `0600).`
          : '';
        process.stderr.write(`attest: cannot listen: ${why}.${where}\n`);
        process.exitCode = 1;
        return;
      }
      if (!boot.created && fs.existsSync(savedCredentials)) {
        // A first start that failed after bootstrapping (port in use) never printed them: say where they are.
        out.write(
          `Credentials of the first boot (admin token, login token, factory id) are in ${savedCredentials} (mode ` +
            `0600); delete the file once they are stored elsewhere.\n`,
        );
      }
      if (boot.created) {
        out.write(
          '\nFirst boot: created org "default" (enterprise), user admin@localhost (owner) and factory "default".\n',
        );
        out.write('These credentials are shown once (also saved to bootstrap.json in the data dir, mode 0600):\n');
        out.write(`  factory id (X-Outerlayer-App-Id): ${boot.appId}\n`);
        if (boot.adminToken) out.write(`  admin token (operator routes):     ${boot.adminToken}\n`);
        if (boot.loginToken) out.write(`  login token (admin@localhost):     ${boot.loginToken}\n`);
        if (boot.loginTokenId) {
          // The link names the public URL; without ATTEST_PUBLIC_URL that is this listener's own port.
          const port = app.server.address();
          const base =
            process.env.ATTEST_PUBLIC_URL || typeof port !== 'object' || port === null
              ? config.publicUrl
              : `http://localhost:${port.port}`;
          const { mintSignInLink } = await import('../areas/dashboard/service.js');
          const link = await mintSignInLink(
            app.attest.db,
            app.attest.pepper,
            app.attest.clock.now(),
            base,
            boot.userId,
            boot.loginTokenId,
          );
          out.write(
            `  dashboard sign-in (one-time link, valid 10 minutes; later run \`attest dashboard\`):\n    ${link.url}\n`,
          );
        }
        out.write('\n');
      }
      out.write(
        `Store: ${app.attest.dialect === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL'}; rate limits: ` +
          `${app.attest.rateLimits.store}\n`,
      );
      // Handlers first: whoever reads the line below may signal at once.
      let closing = false;
      const shutdown = (signal: string) => {
        if (closing) return;
        closing = true;
        app.log.info({ signal }, 'draining in-flight requests and closing the store');
        app.close().then(
          () => process.exit(0),
          (err: unknown) => {
            app.log.error({ err }, 'error while shutting down');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
      out.write(`Attest gateway listening on ${address} (public URL ${config.publicUrl})\n`);
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .option('-d, --data-dir <dir>', 'data directory (env ATTEST_DATA_DIR, default ./.attest)')
    .action(async (flags: ServeFlags) => {
      const config = loadConfig(envWithFlags(flags));
      const { openDatabase } = await import('../db/connection.js');
      const { migrateToLatest } = await import('../db/migrate.js');
      const handle = await openDatabase(config);
      try {
        const result = await migrateToLatest(
          handle.db as unknown as Kysely<unknown>,
          handle.dialect,
          config.databaseSchema,
        );
        const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Already up to date.\n');
      } finally {
        await handle.close();
      }
    });

  program
    .command('backup <dir>')
    .description(
      'Back up a SQLite gateway (it may be serving) into a new directory: a consistent copy of the database, the ' +
        'blobs and the key pepper',
    )
    .option('-d, --data-dir <dir>', 'data directory (env ATTEST_DATA_DIR, default ./.attest)')
    .action(async (dir: string, flags: ServeFlags) => {
      const config = loadConfig(envWithFlags(flags));
      if (config.databaseUrl) {
        process.stderr.write('attest: backup copies a SQLite gateway; for PostgreSQL and S3 see docs/deploy.md.\n');
        process.exitCode = 1;
        return;
      }
      const { backupDataDir } = await import('../db/backup.js');
      try {
        const r = backupDataDir(config.dataDir, path.resolve(dir));
        process.stdout.write(
          `Backed up ${config.dataDir} to ${dir}: database ${r.databaseBytes} bytes, ${r.blobs} blobs.\n`,
        );
      } catch (err) {
        process.stderr.write(`attest: backup failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
      }
    });

  program
    .command('restore <dir>')
    .description('Restore a backup made by `attest backup` into an empty data directory')
    .option('-d, --data-dir <dir>', 'data directory (env ATTEST_DATA_DIR, default ./.attest)')
    .action(async (dir: string, flags: ServeFlags) => {
      const config = loadConfig(envWithFlags(flags));
      const { restoreDataDir } = await import('../db/backup.js');
      try {
        const r = restoreDataDir(path.resolve(dir), config.dataDir);
        process.stdout.write(
          `Restored ${dir} into ${config.dataDir}: database ${r.databaseBytes} bytes, ${r.blobs} blobs.\n`,
        );
      } catch (err) {
        process.stderr.write(`attest: restore failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
      }
    });
}
