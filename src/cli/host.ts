// `attest host heartbeat [--every 30s]`: tell the gateway this runner host is alive (POST /v1/hosts/heartbeat).
import crypto from 'node:crypto';
import os from 'node:os';
import type { Command } from 'commander';
import { ApiClientError } from '../client/index.js';
import { VERSION } from '../version.js';
import { action, describeError, printJson, sleep } from './output.js';
import { CliError, clientFor, resolveProfile } from './profile.js';

interface HeartbeatFlags {
  hostId?: string;
  name?: string;
  capacity: string;
  activeJobs: string;
  label?: string[];
  every?: string;
  json?: boolean;
}

/** "30s", "2m", "500ms", "45" (seconds) → milliseconds. */
export function parseInterval(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new CliError(`--every "${value}" is not an interval such as 30s or 2m`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  const ms = unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
  if (ms < 1000) throw new CliError('--every must be at least 1s');
  return ms;
}

function count(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a whole number`);
  return n;
}

export function registerHost(program: Command): void {
  const host = program.command('host').description('Runner hosts');
  host
    .command('heartbeat')
    .description('Report this host as alive (once, or repeatedly with --every)')
    .option('--host-id <id>', 'stable id of this host (default: derived from the hostname)')
    .option('--name <name>', 'display name (default: the hostname)')
    .option('--capacity <n>', 'how many jobs this host runs at once', '1')
    .option('--active-jobs <n>', 'jobs running now', '0')
    .option('--label <label...>', 'labels (repeatable)')
    .option('--every <interval>', 'keep beating at this interval (e.g. 30s) until stopped')
    .option('--json', 'print each answer as JSON')
    .action(
      action(async (flags: HeartbeatFlags) => {
        const name = flags.name ?? os.hostname();
        const body = {
          hostId:
            flags.hostId ?? `host-${crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 16)}`,
          name,
          runnerVersion: VERSION,
          capacity: count(flags.capacity, '--capacity'),
          activeJobs: count(flags.activeJobs, '--active-jobs'),
          ...(flags.label?.length ? { labels: flags.label } : {}),
        };
        const intervalMs = flags.every ? parseInterval(flags.every) : undefined;
        const client = clientFor(resolveProfile());
        let stop = false;
        if (intervalMs) {
          process.once('SIGINT', () => (stop = true));
          process.once('SIGTERM', () => (stop = true));
        }
        do {
          try {
            const res = await client.heartbeat(body);
            if (flags.json) printJson(res);
            else process.stdout.write(`Heartbeat sent: ${body.name} (${body.hostId}) ${String(res.status ?? '')}\n`);
          } catch (err) {
            // Once: fail. Repeating: a missed beat is reported and the next one tried, except for auth errors.
            if (!intervalMs || (err instanceof ApiClientError && (err.status === 401 || err.status === 403))) throw err;
            process.stderr.write(`attest: heartbeat failed: ${describeError(err)}\n`);
          }
          if (intervalMs) await sleep(intervalMs);
        } while (intervalMs && !stop);
      }),
    );
}
