// The gateway's log lines are held in memory and written in batches (src/server/log-destination.ts): held
// lines must still reach the file, in order, on a timer, on a clean stop and on a crash.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchedLogDestination, LOG_BATCH_CHARS } from '../../src/server/log-destination.js';
import { testTempDir } from '../helpers/tmp.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function toFile(): { file: string; out: ReturnType<typeof pino.destination>; dest: BatchedLogDestination } {
  const file = path.join(testTempDir('attest-log-'), 'log.ndjson');
  const out = pino.destination({ dest: file, sync: true, minLength: 0 });
  return { file, out, dest: new BatchedLogDestination(out) };
}

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

describe('BatchedLogDestination', () => {
  it('holds a few lines, then writes them on its own within the flush interval', async () => {
    const { file, dest } = toFile();
    dest.write('{"n":1}\n');
    dest.write('{"n":2}\n');
    expect(read(file)).toBe('');
    await expect.poll(() => read(file), { timeout: 3_000 }).toBe('{"n":1}\n{"n":2}\n');
    dest.close();
  });

  it('writes a batch as soon as it is full, and keeps every line in order across batches', () => {
    const { file, dest } = toFile();
    const lines = Array.from({ length: 1000 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(90)}"}\n`);
    let written = 0;
    for (const line of lines) {
      dest.write(line);
      written += line.length;
      // The writer here is synchronous: what was handed over is in the file at once.
      if (written < LOG_BATCH_CHARS) expect(read(file)).toBe('');
    }
    const before = read(file);
    expect(before.length).toBeGreaterThanOrEqual(LOG_BATCH_CHARS);
    expect(before.length).toBeLessThan(written);
    dest.flushSync();
    expect(read(file)).toBe(lines.join(''));
    dest.close();
  });

  it("the writer's own flushSync, which pino's exit hook calls, writes the held lines first", () => {
    const { file, out, dest } = toFile();
    dest.write('{"held":true}\n');
    out.flushSync();
    expect(read(file)).toBe('{"held":true}\n');
    dest.close();
  });

  it('a process that crashes on an uncaught exception still writes the line it held', () => {
    const script = `
      const { BatchedLogDestination } = await import('./src/server/log-destination.ts');
      const { pino } = await import('pino');
      const log = pino({ base: null, timestamp: false }, BatchedLogDestination.toDescriptor(1));
      log.info({ probe: 'before-crash' }, 'held line');
      setTimeout(() => { throw new Error('crash on purpose'); }, 20);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('crash on purpose');
    expect(run.stdout).toBe('{"level":30,"probe":"before-crash","msg":"held line"}\n');
  }, 60_000);
});
