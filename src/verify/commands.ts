// What a shell tool call ran: its simple commands with wrappers taken off (`npx`, `uv run`, `timeout`,
// `bash -c '...'`), each matched against the tool table, and the hook bypasses of its commits and pushes.
import { nestedScript, simpleCommands, type SimpleCommand } from './shell.js';
import { TOOLS, filtered, scriptRun, type Args, type Recognised, type ToolEntry } from './tools/index.js';

/** One recognised run inside a tool call, with what the line's exit status says about it. */
export interface CommandPart extends Recognised {
  passesWithLine: boolean;
  failsWithLine: boolean;
  /** How a commit or push skipped its hooks, if it did. */
  bypass?: string;
}

/** A command line (Claude's `command`, Codex's `cmd`) or an argv (Codex's `["bash","-lc","..."]`). */
export function readCommand(input: string | string[]): readonly CommandPart[] {
  const key = Array.isArray(input) ? JSON.stringify(input) : input;
  const known = memo.get(key);
  if (known) return known;
  // A line that names no program of the tables cannot hold a run worth recognising: no need to parse it.
  const parts = mayMatter(key) ? readUncached(input) : [];
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, parts);
  return parts;
}

/** Agents repeat lines (`npm test`, `git status`): the parts of recent lines are kept, per process. */
const memo = new Map<string, readonly CommandPart[]>();
const MEMO_SIZE = 4096;

let mattering: RegExp | undefined;
function mayMatter(text: string): boolean {
  mattering ??= new RegExp(
    [
      ...new Set([
        ...TOOL_PROGRAMS,
        ...Object.keys(RUNNERS_WITH_SUB),
        ...SCRIPT_MANAGERS,
        ...SHELLS,
        'python',
        'py',
        'git',
        'gh',
        'make',
        'just',
        'task',
        'turbo',
        'nx',
        'composer',
        'deno',
        'apply_patch',
      ]),
    ]
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
  );
  return mattering.test(text);
}

function readUncached(input: string | string[]): CommandPart[] {
  const commands: SimpleCommand[] = Array.isArray(input)
    ? [{ argv: input, env: {}, exported: {}, passesWithLine: true, failsWithLine: true }]
    : simpleCommands(input);
  const parts: CommandPart[] = [];
  for (const c of commands) for (const u of unwrap(c, 0)) parts.push(...recognise(u));
  return parts;
}

/** The program's name as the table knows it: no directory, no `.exe`, `python3.12` → `python`. */
function programName(word: string): string {
  const base = word.slice(word.lastIndexOf('/') + 1).replace(/\.(exe|cmd|bat)$/i, '');
  if (/^python[\d.]*$/.test(base)) return 'python';
  return base;
}

function withArgv(c: SimpleCommand, argv: string[], env: Record<string, string> = {}): SimpleCommand {
  return { ...c, argv, env: { ...c.env, ...env } };
}

/** Index of the first word after options, where `valueOptions` take the next word. */
function afterOptions(argv: string[], from: number, valueOptions: readonly string[]): number {
  let i = from;
  while (i < argv.length) {
    const w = argv[i]!;
    if (w === '--') return i + 1;
    if (!w.startsWith('-') || w === '-') return i;
    i += valueOptions.includes(w) ? 2 : 1;
  }
  return i;
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);
const PASSTHROUGH: Record<string, readonly string[]> = {
  nohup: [],
  time: ['-f', '-o'],
  command: [],
  exec: ['-a'],
  builtin: [],
  nice: ['-n'],
  ionice: ['-c', '-n'],
  stdbuf: ['-i', '-o', '-e'],
  sudo: ['-u', '-g', '-C', '-D'],
  'xvfb-run': ['-s', '-n', '-f', '-e', '--server-args'],
  caffeinate: [],
  chronic: [],
  unbuffer: [],
  npx: ['-p', '--package', '-c', '--call', '-w', '--workspace'],
  pnpx: ['-p', '--package'],
  bunx: ['-p', '--package'],
  uvx: ['--with', '--from', '--python', '-p'],
};
const RUNNERS_WITH_SUB: Record<string, { sub: string[]; options: readonly string[] }> = {
  pnpm: { sub: ['exec', 'dlx'], options: ['-C', '--dir', '--filter', '-F'] },
  yarn: { sub: ['exec', 'dlx'], options: ['--cwd'] },
  npm: { sub: ['exec', 'x'], options: ['-w', '--workspace', '--prefix', '-p', '--package', '-c', '--call'] },
  bun: { sub: ['x'], options: ['--cwd'] },
  uv: {
    sub: ['run'],
    options: [
      '--with',
      '--python',
      '-p',
      '--extra',
      '--group',
      '--package',
      '--directory',
      '--project',
      '--env-file',
      '--with-requirements',
      '--index',
    ],
  },
  poetry: { sub: ['run'], options: ['-C', '--directory'] },
  pipenv: { sub: ['run'], options: [] },
  pdm: { sub: ['run'], options: ['-p', '--project'] },
  hatch: { sub: ['run'], options: ['-e', '--env'] },
  rye: { sub: ['run'], options: [] },
  bundle: { sub: ['exec'], options: ['--gemfile'] },
  dotenv: { sub: [], options: ['-e', '-c', '-v'] },
};

/** Takes wrappers off until the command that does the work remains; `bash -c` scripts are parsed in turn. */
function unwrap(c: SimpleCommand, depth: number): SimpleCommand[] {
  if (depth > 6 || c.argv.length === 0) return [c];
  const prog = programName(c.argv[0]!);
  const argv = c.argv;
  if (prog === 'env' || prog === 'cross-env') {
    const env: Record<string, string> = {};
    let i = 1;
    while (i < argv.length) {
      const w = argv[i]!;
      if (w === '-u' || w === '--unset' || w === '-C' || w === '--chdir') i += 2;
      else if (w.startsWith('-')) i += 1;
      else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
        const eq = w.indexOf('=');
        env[w.slice(0, eq)] = w.slice(eq + 1);
        i += 1;
      } else break;
    }
    return unwrap(withArgv(c, argv.slice(i), env), depth + 1);
  }
  if (prog === 'timeout') {
    let i = afterOptions(argv, 1, ['-s', '--signal', '-k', '--kill-after']);
    i += 1; // the duration
    return unwrap(withArgv(c, argv.slice(i)), depth + 1);
  }
  const pass = PASSTHROUGH[prog];
  if (pass) {
    if (prog === 'command' && (argv[1] === '-v' || argv[1] === '-V')) return [c];
    return unwrap(withArgv(c, argv.slice(afterOptions(argv, 1, pass))), depth + 1);
  }
  const runner = RUNNERS_WITH_SUB[prog];
  if (runner) {
    const i = afterOptions(argv, 1, runner.options);
    if (runner.sub.length === 0) return unwrap(withArgv(c, argv.slice(i)), depth + 1);
    if (runner.sub.includes(argv[i] ?? '')) {
      return unwrap(withArgv(c, argv.slice(afterOptions(argv, i + 1, runner.options))), depth + 1);
    }
    return [c];
  }
  if (prog === 'python' || prog === 'py') {
    const m = argv.indexOf('-m');
    if (m > 0 && m + 1 < argv.length && argv.slice(1, m).every((w) => w.startsWith('-'))) {
      return unwrap(withArgv(c, argv.slice(m + 1)), depth + 1);
    }
    const script = argv.findIndex((w, k) => k > 0 && !w.startsWith('-'));
    if (script > 0) return unwrap(withArgv(c, argv.slice(script)), depth + 1);
    return [c];
  }
  if (SHELLS.has(prog)) {
    const flag = argv.findIndex((w, k) => k > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(w));
    const script = flag > 0 ? argv[flag + 1] : undefined;
    if (script !== undefined) return nestedScript(script, c).flatMap((n) => unwrap(n, depth + 1));
    return [c];
  }
  return [c];
}

/** Splits words into operands, options (with values for `valueOptions`) and what follows `--`. */
export function readArgs(words: string[], valueOptions: readonly string[] = []): Args {
  const operands: string[] = [];
  const options = new Map<string, string>();
  let rest: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') {
      rest = words.slice(i + 1);
      break;
    }
    if (w.startsWith('-') && w.length > 1) {
      const eq = w.indexOf('=');
      if (eq > 0) options.set(w.slice(0, eq), w.slice(eq + 1));
      else if (valueOptions.includes(w) && i + 1 < words.length) options.set(w, words[++i]!);
      else options.set(w, '');
    } else operands.push(w);
  }
  return { operands, options, rest };
}

const SCRIPT_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const MANAGER_BUILTINS = new Set([
  'install',
  'i',
  'ci',
  'add',
  'remove',
  'rm',
  'uninstall',
  'update',
  'up',
  'upgrade',
  'link',
  'unlink',
  'publish',
  'pack',
  'init',
  'create',
  'outdated',
  'audit',
  'ls',
  'list',
  'why',
  'info',
  'view',
  'config',
  'set',
  'login',
  'version',
  'help',
  'cache',
  'store',
  'dedupe',
  'prune',
  'start',
  'restart',
  'stop',
  'exec',
  'dlx',
  'x',
  'fund',
  'doctor',
  'import',
  'patch',
  'rebuild',
  'root',
  'bin',
  'setup',
  'env',
  'workspaces',
  'in',
  'isntall',
]);
const MANAGER_OPTIONS = ['-w', '--workspace', '--prefix', '-C', '--dir', '--filter', '-F', '--cwd'];
const TOOL_PROGRAMS = new Set(TOOLS.flatMap((t) => t.programs));
/** The table's entries for each program, in the table's order (the first that matches wins). */
const TOOLS_BY_PROGRAM = new Map<string, ToolEntry[]>();
for (const entry of TOOLS) {
  for (const p of new Set(entry.programs)) TOOLS_BY_PROGRAM.set(p, [...(TOOLS_BY_PROGRAM.get(p) ?? []), entry]);
}

function recognise(c: SimpleCommand): CommandPart[] {
  if (c.argv.length === 0) return [];
  const prog = programName(c.argv[0]!);
  const words = c.argv.slice(1);
  const flags = { passesWithLine: c.passesWithLine, failsWithLine: c.failsWithLine };
  const found = (r: Recognised[]): CommandPart[] => r.map((x) => ({ ...x, ...flags }));

  if (prog === 'git') return found(git(words)).map((p) => withBypass(p, c, words));
  if (prog === 'gh') {
    const a = readArgs(words, ['-R', '--repo']);
    if (a.operands[0] === 'pr' && a.operands[1] === 'create')
      return found([{ tool: 'gh-pr-create', kind: 'pr_create', scope: 'full' }]);
    return [];
  }
  if (SCRIPT_MANAGERS.has(prog)) {
    const scripted = managerScript(prog, words);
    if (scripted) return found([scripted]);
  }
  if (prog === 'make' || prog === 'gmake' || prog === 'just' || prog === 'task') {
    const a = readArgs(words, ['-C', '-f', '--file', '-j', '--jobs', '-d', '--dir', '--justfile', '-t', '--taskfile']);
    const targets = a.operands.filter((o) => !o.includes('='));
    const runnerId = prog === 'gmake' ? 'make' : prog;
    if (targets.length === 0) return found([{ tool: runnerId, kind: 'build', scope: 'full' }]);
    return found(targets.map((t) => scriptRun(runnerId, t, [])));
  }
  if (prog === 'turbo' || prog === 'nx') return found(taskRunner(prog, words));
  if ((prog === 'composer' || prog === 'deno') && words.length > 0) {
    const a = readArgs(words);
    const [first, second] = a.operands;
    if (prog === 'composer' && (first === 'run-script' || first === 'run') && second)
      return found([scriptRun('composer-script', second, a.rest)]);
    if (prog === 'composer' && first && first !== 'install' && first !== 'require' && first !== 'update') {
      return found([scriptRun('composer-script', first, a.rest)]);
    }
    if (prog === 'deno' && first === 'task' && second)
      return found([scriptRun('deno-task', second, a.operands.slice(2))]);
  }
  for (const entry of TOOLS_BY_PROGRAM.get(prog) ?? []) {
    const args = readArgs(words, entry.valueOptions);
    const sub = entry.sub ?? [];
    if (sub.some((s, k) => args.operands[k] !== s)) continue;
    const rest: Args = { ...args, operands: args.operands.slice(sub.length) };
    if (entry.when && !entry.when(rest)) continue;
    const kind = entry.kindOf ? entry.kindOf(rest) : entry.kind;
    if (kind === 'other') continue;
    const scope = entry.scope ? entry.scope(rest) : filtered(rest, entry.filters);
    return found([{ tool: entry.id, kind, scope }]);
  }
  return [];
}

/** `npm test`, `pnpm run lint -- --fix`, `yarn test:e2e`, `bun run build`; `pnpm vitest` runs the binary. */
function managerScript(prog: string, words: string[]): Recognised | undefined {
  const i = afterOptions(words, 0, MANAGER_OPTIONS);
  const narrowed = words
    .slice(0, i)
    .some((w) =>
      ['-w', '--workspace', '--filter', '-F', '--prefix', '-C', '--dir', '--cwd'].includes(w.split('=')[0]!),
    );
  const first = words[i];
  if (first === undefined) return undefined;
  let script: string | undefined;
  let extra: string[];
  if (first === 'test' || first === 't' || first === 'tst') {
    if (prog === 'bun') return undefined; // bun's own runner, in the tool table
    script = 'test';
    extra = words.slice(i + 1).filter((w) => w !== '--');
  } else if (first === 'run' || first === 'run-script' || first === 'rum' || first === 'urn') {
    const j = afterOptions(words, i + 1, MANAGER_OPTIONS);
    script = words[j];
    extra = words.slice(j + 1).filter((w) => w !== '--');
  } else if (prog !== 'npm' && !MANAGER_BUILTINS.has(first) && !first.startsWith('-')) {
    if (TOOL_PROGRAMS.has(first)) return undefined; // `pnpm vitest run`: the binary, unwrapped by the caller
    script = first;
    extra = words.slice(i + 1).filter((w) => w !== '--');
  } else return undefined;
  if (!script) return undefined;
  const r = scriptRun('npm-script', script, extra);
  return narrowed && r.scope === 'full' ? { ...r, scope: 'partial' } : r;
}

function taskRunner(prog: string, words: string[]): Recognised[] {
  const a = readArgs(words, [
    '--filter',
    '-F',
    '-t',
    '--target',
    '--targets',
    '-p',
    '--projects',
    '--base',
    '--head',
    '-c',
    '--configuration',
  ]);
  const narrowed =
    a.options.has('--filter') ||
    a.options.has('-F') ||
    a.options.has('-p') ||
    a.options.has('--projects') ||
    a.operands[0] === 'affected';
  let tasks: string[];
  if (prog === 'nx') {
    if (a.operands[0] === 'run-many' || a.operands[0] === 'affected')
      tasks = (a.options.get('-t') ?? a.options.get('--target') ?? a.options.get('--targets') ?? '').split(',');
    else if (a.operands[0] === 'run' && a.operands[1]) tasks = [a.operands[1].split(':')[1] ?? ''];
    else tasks = a.operands[0] ? [a.operands[0]] : [];
    const single = a.operands[0] !== 'run-many' && a.operands[0] !== 'affected';
    return tasks.filter(Boolean).map((t) => {
      const r = scriptRun('nx', t, []);
      return single || narrowed ? { ...r, scope: 'partial' as const } : r;
    });
  }
  tasks = a.operands[0] === 'run' ? a.operands.slice(1) : a.operands;
  return tasks.map((t) => {
    const r = scriptRun('turbo', t, a.rest);
    return narrowed ? { ...r, scope: 'partial' as const } : r;
  });
}

// ---------------------------------------------------------------------------------------------------------
// git: global options come before the subcommand (`git -C dir -c core.hooksPath=/dev/null commit`), and the
// subcommand's own options after it; `-C` means different things in the two places.

const GIT_GLOBAL_VALUES = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env'];
/** Options of `git commit` that take the next word as their value (the message is never read for flags). */
const COMMIT_VALUES = [
  '-m',
  '--message',
  '-F',
  '--file',
  '-C',
  '--reuse-message',
  '-c',
  '--reedit-message',
  '--author',
  '--date',
  '--fixup',
  '--squash',
  '-t',
  '--template',
  '--trailer',
  '--cleanup',
  '-S',
  '--gpg-sign',
];
const COMMIT_SHORT_VALUES = new Set(['m', 'F', 'C', 'c', 't']);
const PUSH_VALUES = ['--repo', '-o', '--push-option', '--receive-pack', '--exec'];

function gitParts(words: string[]): { globals: Map<string, string>; sub: string | undefined; rest: string[] } {
  const globals = new Map<string, string>();
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (!w.startsWith('-')) break;
    const eq = w.indexOf('=');
    if (eq > 0) globals.set(w.slice(0, eq), w.slice(eq + 1));
    else if (GIT_GLOBAL_VALUES.includes(w)) {
      globals.set(w === '-c' ? `-c ${words[i + 1] ?? ''}` : w, words[i + 1] ?? '');
      i += 1;
    } else globals.set(w, '');
    i += 1;
  }
  return { globals, sub: words[i], rest: words.slice(i + 1) };
}

function git(words: string[]): Recognised[] {
  const { sub } = gitParts(words);
  if (sub === 'commit') return [{ tool: 'git-commit', kind: 'commit', scope: 'full' }];
  if (sub === 'push') return [{ tool: 'git-push', kind: 'push', scope: 'full' }];
  return [];
}

/** The switch that made this commit or push skip the repository's hooks, if any. */
function withBypass(part: CommandPart, c: SimpleCommand, words: string[]): CommandPart {
  const how = gitBypass(part.kind, c, words);
  return how ? { ...part, bypass: how } : part;
}

function gitBypass(kind: string, c: SimpleCommand, words: string[]): string | undefined {
  const { globals, rest } = gitParts(words);
  for (const key of globals.keys()) if (/^-c core\.hookspath=/i.test(key)) return 'core.hooksPath';
  if (kind === 'commit') {
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!;
      if (w === '--') break;
      if (w === '--no-verify') return '--no-verify';
      if (COMMIT_VALUES.includes(w)) {
        i += 1;
        continue;
      }
      if (/^-[A-Za-z]+$/.test(w)) {
        // A cluster of short flags (`-anm msg`): a value-taking letter ends it.
        for (const ch of w.slice(1)) {
          if (ch === 'n') return '-n';
          if (COMMIT_SHORT_VALUES.has(ch)) break;
        }
        if (COMMIT_SHORT_VALUES.has(w[w.length - 1]!)) i += 1;
      }
    }
  } else if (kind === 'push') {
    for (let i = 0; i < rest.length; i++) {
      const w = rest[i]!;
      if (w === '--') break;
      if (w === '--no-verify') return '--no-verify';
      if (PUSH_VALUES.includes(w)) i += 1;
    }
  } else return undefined;
  const env = { ...c.exported, ...c.env };
  if (env.HUSKY === '0' || env.HUSKY === 'false') return 'HUSKY=0';
  if (env.HUSKY_SKIP_HOOKS && env.HUSKY_SKIP_HOOKS !== '0') return 'HUSKY_SKIP_HOOKS';
  if (env.SKIP) return `SKIP=${env.SKIP.slice(0, 60)}`;
  if (env.LEFTHOOK === '0') return 'LEFTHOOK=0';
  return undefined;
}
