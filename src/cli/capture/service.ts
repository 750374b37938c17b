// The service that keeps `attest watch` running: a systemd user unit on Linux, a launchd agent on macOS. The
// unit names the absolute path of the attest binary (and of Node, whose folder goes on PATH: a service does
// not read the shell's profile, where nvm and the like put it).
import os from 'node:os';
import path from 'node:path';
import { shellWord } from './settings-file.js';

export type ServicePlatform = 'linux' | 'darwin';

export const SYSTEMD_UNIT = 'attest-watch.service';
export const LAUNCHD_LABEL = 'dev.attest.watch';
/** The environment a unit carries over from the shell that installed it (never a credential). */
const CARRIED = ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'ATTEST_CLAUDE_DIR', 'ATTEST_CODEX_DIR', 'CODEX_HOME'];

export interface ServiceFile {
  platform: ServicePlatform;
  file: string;
  text: string;
  start: string;
  stop: string;
  logs: string;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

export function serviceFilePath(platform: ServicePlatform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'darwin') return path.join(home(env), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const config =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home(env), '.config');
  return path.join(config, 'systemd', 'user', SYSTEMD_UNIT);
}

function carried(env: NodeJS.ProcessEnv): [string, string][] {
  const out: [string, string][] = [['PATH', `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`]];
  for (const k of CARRIED) if (env[k]) out.push([k, env[k]!]);
  return out;
}

/** One word of a systemd command line or assignment: quoted, with systemd's specifiers and variables escaped. */
function systemdWord(word: string): string {
  const escaped = word.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(word) ? escaped : `"${escaped}"`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The unit or agent file that runs `argv` (the attest binary and `watch ...`). */
export function serviceFile(
  platform: ServicePlatform,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ServiceFile {
  const file = serviceFilePath(platform, env);
  if (platform === 'linux') {
    const text = [
      '# Written by `attest watch --install`; `attest watch --install --remove` takes it out.',
      '[Unit]',
      'Description=Attest: send Claude Code and Codex sessions to the gateway as they change',
      'After=network-online.target',
      '',
      '[Service]',
      `ExecStart=${argv.map(systemdWord).join(' ')}`,
      ...carried(env).map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`)}`),
      'Restart=on-failure',
      'RestartSec=10',
      '',
      '[Install]',
      'WantedBy=default.target',
      '',
    ].join('\n');
    return {
      platform,
      file,
      text,
      start: `systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT}`,
      stop: `systemctl --user disable --now ${SYSTEMD_UNIT}`,
      logs: `journalctl --user -u ${SYSTEMD_UNIT} -f`,
    };
  }
  const log = path.join(home(env), 'Library', 'Logs', 'attest-watch.log');
  const text = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!-- Written by `attest watch --install`; `attest watch --install --remove` takes it out. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...argv.map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...carried(env).map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`),
    '  </dict>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>10</integer>',
    `  <key>StandardOutPath</key><string>${xml(log)}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
  return {
    platform,
    file,
    text,
    start: `launchctl bootstrap gui/$(id -u) ${shellWord(file)}`,
    stop: `launchctl bootout gui/$(id -u)/${LAUNCHD_LABEL}`,
    logs: `tail -f ${shellWord(log)}`,
  };
}
