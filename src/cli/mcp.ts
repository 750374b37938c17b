// `attest mcp install [--dir D]`: add the gateway's MCP server to Claude Code's project config (.mcp.json),
// keeping every other server in the file. The credential is written as ${ATTEST_API_KEY} (Claude Code expands
// environment variables in .mcp.json), so the file can be committed; --inline-token writes the literal
// credential instead and makes the file mode 0600.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { VERSION } from '../version.js';
import { action, printJson } from './output.js';
import { CliError, resolveProfile } from './profile.js';

interface McpFlags {
  dir?: string;
  name: string;
  inlineToken?: boolean;
  json?: boolean;
}

export function registerMcp(program: Command): void {
  const mcp = program.command('mcp').description('MCP server configuration for coding agents');
  mcp
    .command('install')
    .description("Write the Attest MCP server entry into .mcp.json (Claude Code's project config)")
    .option('--dir <dir>', 'project directory holding .mcp.json (default: the current directory)')
    .option('--name <name>', 'server name in .mcp.json', 'attest')
    .option('--inline-token', 'write the credential itself instead of ${ATTEST_API_KEY} (file becomes 0600)')
    .option('--json', 'print the written entry as JSON')
    .action(
      action(async (flags: McpFlags) => {
        const profile = resolveProfile();
        const dir = path.resolve(flags.dir ?? process.cwd());
        if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new CliError(`${dir} is not a directory`);
        const file = path.join(dir, '.mcp.json');
        let config: { mcpServers?: Record<string, unknown>; [k: string]: unknown } = {};
        if (fs.existsSync(file)) {
          try {
            config = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof config;
          } catch {
            throw new CliError(`${file} is not valid JSON; fix it first (nothing was written).`);
          }
        }
        const entry = {
          type: 'http',
          url: `${profile.url}/v1/mcp`,
          headers: {
            Authorization: `Bearer ${flags.inlineToken ? profile.token : '${ATTEST_API_KEY}'}`,
            ...(profile.appId ? { 'X-Outerlayer-App-Id': profile.appId } : {}),
            'X-Outerlayer-Runner-Version': VERSION,
          },
        };
        config.mcpServers = { ...(config.mcpServers ?? {}), [flags.name]: entry };
        fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, flags.inlineToken ? { mode: 0o600 } : {});
        if (flags.inlineToken) fs.chmodSync(file, 0o600);
        if (flags.json)
          printJson({
            file,
            name: flags.name,
            entry: {
              ...entry,
              headers: {
                ...entry.headers,
                Authorization: flags.inlineToken ? 'Bearer (inline)' : entry.headers.Authorization,
              },
            },
          });
        else {
          process.stdout.write(`Wrote MCP server "${flags.name}" → ${entry.url} to ${file}\n`);
          if (!flags.inlineToken)
            process.stdout.write(
              'Claude Code reads the credential from ATTEST_API_KEY: export it where Claude Code runs.\n',
            );
        }
      }),
    );
}
