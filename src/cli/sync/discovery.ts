// `attest sync`'s discovery: which session files exist on this machine, what was sent before (the
// watermarks), and a file read as a session.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { captureSession } from '../../capture/facts.js';
import { normalizeRepoUrl, type AgentSessionV1, type CaptureTier } from '../../capture/index.js';
import { stateDir } from '../profile.js';

export type SourceKind = 'claude-code' | 'codex';

export interface FoundFile {
  path: string;
  kind: SourceKind;
  size: number;
  mtimeMs: number;
}

export interface Watermark {
  size: number;
  mtimeMs: number;
  tier: CaptureTier;
  sessionId: string;
}
export type WatermarkFile = Record<string, Record<string, Watermark>>;

export function claudeRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ATTEST_CLAUDE_DIR || path.join(os.homedir(), '.claude', 'projects');
}

export function codexRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.ATTEST_CODEX_DIR || path.join(os.homedir(), '.codex', 'sessions');
}

function walk(dir: string, depth: number, accept: (name: string) => boolean, out: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory() && depth > 0) walk(full, depth - 1, accept, out);
    else if (e.isFile() && accept(e.name)) out.push(full);
  }
}

/** Every transcript file under the two roots, oldest first. */
export function discover(env: NodeJS.ProcessEnv = process.env): FoundFile[] {
  const found: { path: string; kind: SourceKind }[] = [];
  const claude: string[] = [];
  // <project>/<session>.jsonl and <project>/<session>/subagents/agent-<id>.jsonl
  walk(claudeRoot(env), 3, (n) => n.endsWith('.jsonl'), claude);
  found.push(...claude.map((p) => ({ path: p, kind: 'claude-code' as const })));
  const codex: string[] = [];
  // YYYY/MM/DD/rollout-*.jsonl
  walk(codexRoot(env), 4, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), codex);
  found.push(...codex.map((p) => ({ path: p, kind: 'codex' as const })));
  const out: FoundFile[] = [];
  for (const f of found) {
    try {
      const st = fs.statSync(f.path);
      out.push({ ...f, size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // vanished between listing and stat
    }
  }
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
}

export function watermarkPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'sync-watermarks.json');
}

export function readWatermarks(): WatermarkFile {
  try {
    const v = JSON.parse(fs.readFileSync(watermarkPath(), 'utf8')) as unknown;
    return v !== null && typeof v === 'object' ? (v as WatermarkFile) : {};
  } catch {
    return {};
  }
}

const repoCache = new Map<string, string | undefined>();
/** The origin remote of a session's working directory, when it still exists on this machine. */
function gitRepoOf(cwd: string): string | undefined {
  if (repoCache.has(cwd)) return repoCache.get(cwd);
  let repo: string | undefined;
  if (fs.existsSync(cwd)) {
    const r = spawnSync('git', ['-C', cwd, 'config', '--get', 'remote.origin.url'], {
      encoding: 'utf8',
      timeout: 2000,
    });
    const url = r.status === 0 ? r.stdout.trim() : '';
    if (url) repo = normalizeRepoUrl(url);
  }
  repoCache.set(cwd, repo);
  return repo;
}

export function parseFile(file: FoundFile, tier: CaptureTier): AgentSessionV1 {
  const text = fs.readFileSync(file.path, 'utf8');
  const session = captureSession(text, file.kind, tier, file.path);
  session.env.os = process.platform;
  if (tier !== 'metrics' && !session.env.gitRepo && session.env.cwd) {
    const repo = gitRepoOf(session.env.cwd);
    if (repo) session.env.gitRepo = repo;
  }
  return session;
}
