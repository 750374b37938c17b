// The data dir holds plaintext first-boot tokens, the pepper and every session: 0700, and its files 0600.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway, usingPostgres, type TestGateway } from '../helpers/gateway.js';
import { testTempDir } from '../helpers/tmp.js';

const mode = (p: string) => fs.statSync(p).mode & 0o777;
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
});

describe('data dir modes', () => {
  it('the dir is 0700; attest.db, -wal, -shm, pepper, bootstrap.json 0600; blobs 0700 with 0600 files', async () => {
    // A dir made with the usual umask (0755) and a pepper generated into it (no ATTEST_KEY_PEPPER).
    const parent = testTempDir('attest-modes-');
    cleanup.push(parent);
    const dataDir = path.join(parent, 'data');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const gw: TestGateway = await startGateway({ env: { ATTEST_DATA_DIR: dataDir, ATTEST_KEY_PEPPER: '' } });
    try {
      const boot = gw.boot;
      // A blob: an artifact upload stores its bytes under blobs/<aa>/<sha256>.
      const key = await gw.call('POST', '/v1/api-keys', {
        token: boot.loginToken,
        appId: boot.appId,
        body: { name: 'k', preset: 'full-access' },
      });
      const up = await gw.call('POST', '/v1/artifacts', {
        token: key.body.data.plaintext_key,
        appId: boot.appId,
        body: {
          schemaVersion: 1,
          artifact: {
            clientArtifactId: 'a1',
            filename: 'a.txt',
            mediaType: 'text/plain',
            bytes: 5,
            caption: 'c',
            emittedAt: '2026-11-01T11:00:00Z',
            repository: 'acme/shop',
            prNumber: 1,
            // sha256("hello")
            sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
          },
          blob: { data: Buffer.from('hello').toString('base64') },
        },
      });
      expect(up.status, up.text).toBeLessThan(300);

      expect(mode(dataDir)).toBe(0o700);
      const files = [
        'pepper',
        'bootstrap.json',
        ...(usingPostgres ? [] : ['attest.db', 'attest.db-wal', 'attest.db-shm']),
      ];
      for (const f of files) expect([f, mode(path.join(dataDir, f))]).toEqual([f, 0o600]);
      const blobs = path.join(dataDir, 'blobs');
      expect(mode(blobs)).toBe(0o700);
      const sub = fs.readdirSync(blobs).filter((n) => /^[0-9a-f]{2}$/.test(n));
      expect(sub.length).toBe(1);
      expect(mode(path.join(blobs, sub[0]!))).toBe(0o700);
      for (const f of fs.readdirSync(path.join(blobs, sub[0]!))) expect(mode(path.join(blobs, sub[0]!, f))).toBe(0o600);
    } finally {
      await gw.close();
    }
  });

  it("a test gateway keeps its data dir under the run's temp parent and removes it on close", async () => {
    const parent = process.env.ATTEST_TEST_TMP;
    expect(parent, 'vitest globalSetup sets ATTEST_TEST_TMP').toBeTruthy();
    const gw = await startGateway();
    const dir = gw.config.dataDir;
    expect(path.dirname(dir)).toBe(parent);
    expect(fs.existsSync(path.join(dir, 'bootstrap.json'))).toBe(true);
    await gw.close();
    expect(fs.existsSync(dir)).toBe(false);
  });
});
