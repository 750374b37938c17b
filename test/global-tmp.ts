// Every temp dir the tests make (gateway data dirs with plaintext admin tokens, CLI homes with credentials)
// goes under one parent per run, removed when the run ends, so a run leaves nothing in /tmp even when a
// test fails before its own cleanup. Helpers read ATTEST_TEST_TMP (test/helpers/tmp.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-test-run-'));
  fs.chmodSync(dir, 0o700);
  process.env.ATTEST_TEST_TMP = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
