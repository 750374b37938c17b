// The `attest` command. Each command group registers itself from its own file.
import { Command } from 'commander';
import { registerServe } from './serve.js';
import { registerAdmin } from './admin.js';
import { registerLogin } from './login.js';
import { registerSync } from './sync.js';
import { registerEvidence } from './evidence.js';
import { registerWork } from './work.js';
import { registerHost } from './host.js';
import { registerReads } from './reads.js';
import { registerMcp } from './mcp.js';
import { registerDashboard } from './dashboard.js';
import { registerVerify } from './verify.js';
import { registerHookDrain } from './capture/drain.js';
import { registerInit } from './init.js';
import { registerDoctor } from './doctor.js';
import { VERSION } from '../version.js';

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command('attest')
    .description('Attest: the evidence gateway for coding agents, and its CLI')
    .version(VERSION);
  registerServe(program);
  registerAdmin(program);
  registerLogin(program);
  registerSync(program);
  registerEvidence(program);
  registerWork(program);
  registerHost(program);
  registerReads(program);
  registerMcp(program);
  registerDashboard(program);
  registerVerify(program);
  registerInit(program);
  registerDoctor(program);
  registerHookDrain(program);
  await program.parseAsync(argv);
}
