// The `attest` command. Each command group registers itself from its own file; only the group the command
// line names is loaded (a status line or `attest verify` must not pay for the server, the sync pipeline and
// every other command's modules), and every group loads for help or an unknown command.
import { Command } from 'commander';
import { VERSION } from '../version.js';

type Register = (program: Command) => void;

/** The top-level command names each group registers (test/cli/commands-table.test.ts keeps them true). */
export const COMMAND_GROUPS: ReadonlyArray<{ names: readonly string[]; load: () => Promise<Register> }> = [
  { names: ['serve', 'migrate', 'backup', 'restore'], load: async () => (await import('./serve.js')).registerServe },
  { names: ['admin'], load: async () => (await import('./admin.js')).registerAdmin },
  { names: ['login', 'logout', 'whoami'], load: async () => (await import('./login.js')).registerLogin },
  { names: ['sync'], load: async () => (await import('./sync.js')).registerSync },
  { names: ['artifact', 'result'], load: async () => (await import('./evidence.js')).registerEvidence },
  { names: ['work'], load: async () => (await import('./work.js')).registerWork },
  { names: ['host'], load: async () => (await import('./host.js')).registerHost },
  { names: ['sessions', 'session', 'costs'], load: async () => (await import('./reads.js')).registerReads },
  { names: ['mcp'], load: async () => (await import('./mcp.js')).registerMcp },
  { names: ['dashboard'], load: async () => (await import('./dashboard.js')).registerDashboard },
  { names: ['verify'], load: async () => (await import('./verify.js')).registerVerify },
  { names: ['init'], load: async () => (await import('./init.js')).registerInit },
  { names: ['doctor'], load: async () => (await import('./doctor.js')).registerDoctor },
  { names: ['watch'], load: async () => (await import('./watch.js')).registerWatch },
  {
    names: ['hook', 'hook-drain', 'statusline'],
    load: async () => (await import('./capture/drain.js')).registerHookDrain,
  },
];

/** The groups a command line needs: the one it names, none for --version, all otherwise. */
function groupsFor(argv: string[]): typeof COMMAND_GROUPS {
  const first = argv[2];
  if (first === '--version' || first === '-V') return [];
  const named = COMMAND_GROUPS.filter((g) => first !== undefined && g.names.includes(first));
  return named.length > 0 ? named : COMMAND_GROUPS;
}

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('attest')
    .description('Attest: the evidence gateway for coding agents, and its CLI')
    .version(VERSION);
  for (const register of await Promise.all(groupsFor(argv).map((g) => g.load()))) register(program);
  await program.parseAsync(argv);
}
