// A temp dir for a test: under the run's parent (test/global-tmp.ts) when vitest set one, else the OS temp dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function testTempDir(prefix: string): string {
  const parent =
    process.env.ATTEST_TEST_TMP && fs.existsSync(process.env.ATTEST_TEST_TMP)
      ? process.env.ATTEST_TEST_TMP
      : os.tmpdir();
  return fs.mkdtempSync(path.join(parent, prefix));
}
