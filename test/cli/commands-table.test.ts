// The CLI loads only the command group its command line names (src/cli/index.ts), so the table of names per
// group must say exactly what each group registers: a missing name would make that command "unknown".
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_GROUPS } from '../../src/cli/index.js';

describe('the CLI command table', () => {
  it('names every top-level command each group registers, once', async () => {
    const seen: string[] = [];
    for (const group of COMMAND_GROUPS) {
      const program = new Command();
      (await group.load())(program);
      const registered = program.commands.map((c) => c.name());
      expect(registered.sort()).toEqual([...group.names].sort());
      seen.push(...registered);
    }
    expect(new Set(seen).size).toBe(seen.length);
  });
});
