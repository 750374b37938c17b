// `attest mcp install [--dir D]`: add the gateway's MCP server to Claude Code's project config (.mcp.json),
// keeping every other server in the file. The credential is written as ${ATTEST_API_KEY} (Claude Code expands
// environment variables in .mcp.json), so the file can be committed; --inline-token writes the literal
// credential instead and makes the file mode 0600. `--codex` writes [mcp_servers.<name>] into Codex's
// config.toml instead (Streamable HTTP: url, bearer_token_env_var, http_headers), keeping its comments.
// `--remove` takes the entry out again.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { VERSION } from '../version.js';
import { action, printJson } from './output.js';
import { CliError, resolveProfile } from './profile.js';
import { parseCodexConfig } from './capture/codex-config.js';
import { assertWritable, backup, readSettingsText, writeAtomically } from './capture/settings-file.js';
import { codexConfigPath } from './init.js';
import { patch } from '@decimalturn/toml-patch';

interface McpFlags {
  dir?: string;
  codex?: boolean;
  remove?: boolean;
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
    .option('--codex', "write Codex's config.toml ($CODEX_HOME, default ~/.codex) instead of .mcp.json")
    .option('--remove', 'take the entry out instead')
    .action(
      action(async (flags: McpFlags) => {
        if (flags.codex) {
          installCodexMcp(flags);
          return;
        }
        if (flags.remove) {
          removeClaudeMcp(flags);
          return;
        }
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

function removeClaudeMcp(flags: McpFlags): void {
  const file = path.join(path.resolve(flags.dir ?? process.cwd()), '.mcp.json');
  const f = readSettingsText(file);
  let config: { mcpServers?: Record<string, unknown>; [k: string]: unknown };
  try {
    config = f.exists ? (JSON.parse(f.text) as typeof config) : {};
  } catch {
    throw new CliError(`${file} is not valid JSON; fix it first (nothing was written).`);
  }
  if (!config.mcpServers || !(flags.name in config.mcpServers)) {
    process.stdout.write(`No MCP server "${flags.name}" in ${file}; nothing to change.\n`);
    return;
  }
  assertWritable(f);
  const { [flags.name]: _removed, ...rest } = config.mcpServers;
  config.mcpServers = rest;
  writeAtomically(f, `${JSON.stringify(config, null, 2)}\n`);
  process.stdout.write(`Removed MCP server "${flags.name}" from ${file}\n`);
}

function installCodexMcp(flags: McpFlags): void {
  const file = codexConfigPath();
  const f = readSettingsText(file);
  const config = parseCodexConfig(f.text, file);
  const servers = (config.mcp_servers ?? {}) as Record<string, unknown>;
  if (typeof servers !== 'object' || Array.isArray(servers))
    throw new CliError(`"mcp_servers" in ${file} is not a table; fix it first. Nothing was written.`);
  let next: Record<string, unknown>;
  let entry: Record<string, unknown> | undefined;
  if (flags.remove) {
    if (!(flags.name in servers)) {
      process.stdout.write(`No MCP server "${flags.name}" in ${file}; nothing to change.\n`);
      return;
    }
    const { [flags.name]: _removed, ...rest } = servers;
    const { mcp_servers: _all, ...others } = config;
    next = Object.keys(rest).length > 0 ? { ...others, mcp_servers: rest } : others;
  } else {
    const profile = resolveProfile();
    entry = {
      url: `${profile.url}/v1/mcp`,
      // Codex refuses an inline bearer token in config.toml: it reads the credential from this variable.
      bearer_token_env_var: 'ATTEST_API_KEY',
      http_headers: {
        ...(profile.appId ? { 'X-Outerlayer-App-Id': profile.appId } : {}),
        'X-Outerlayer-Runner-Version': VERSION,
      },
    };
    if (JSON.stringify(servers[flags.name]) === JSON.stringify(entry)) {
      process.stdout.write(`MCP server "${flags.name}" in ${file} is up to date; nothing to change.\n`);
      return;
    }
    next = { ...config, mcp_servers: { ...servers, [flags.name]: entry } };
  }
  assertWritable(f);
  const copy = backup(f);
  writeAtomically(f, patch(f.text, next));
  if (flags.json) printJson({ file, name: flags.name, entry: entry ?? null, backup: copy ?? null });
  else {
    process.stdout.write(
      `${flags.remove ? 'Removed' : 'Wrote'} MCP server "${flags.name}" ${flags.remove ? 'from' : 'to'} ${file}` +
        `${copy ? ` (backup ${copy})` : ''}\n`,
    );
    if (!flags.remove)
      process.stdout.write('Codex reads the credential from ATTEST_API_KEY: export it where Codex runs.\n');
  }
}
