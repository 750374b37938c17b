// `attest admin ...`: operator commands that call the /v1/admin routes (filled in below).
import type { Command } from 'commander';
import { mintPlaintext } from '../server/credentials.js';

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('Operator commands (need an admin token: --token or ATTEST_ADMIN_TOKEN)');
  admin
    .command('new-token')
    .description('Print a fresh admin token to use as ATTEST_ADMIN_TOKEN (nothing is stored)')
    .action(() => {
      process.stdout.write(mintPlaintext('admin_token') + '\n');
    });
}
