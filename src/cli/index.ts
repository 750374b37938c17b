// The `attest` command. Each command group registers itself from its own file.
import { Command } from 'commander';
import { registerServe } from './serve.js';
import { registerAdmin } from './admin.js';
import { VERSION } from '../version.js';

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('attest').description('Attest: the evidence gateway for coding agents, and its CLI').version(VERSION);
  registerServe(program);
  registerAdmin(program);
  await program.parseAsync(argv);
}
