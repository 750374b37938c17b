// Issue 42 §6: back up a SQLite gateway while it ingests, restore into a fresh directory, start a gateway on it:
// every session acknowledged before the backup began is there, every blob decodes, the audit chain verifies.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDataDir, restoreDataDir } from '../../src/db/backup.js';
import { createTenant, startGateway, usingPostgres, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { testTempDir } from '../helpers/tmp.js';
import { sessionDoc } from '../areas/metrics/sessions.js';

const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 100 };

describe.skipIf(usingPostgres)('attest backup / restore (SQLite)', () => {
  let gw: TestGateway;
  let restored: TestGateway | undefined;
  let t: Tenant;
  const dirs: string[] = [];
  beforeAll(async () => {
    gw = await startGateway();
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await restored?.close();
    await gw?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const sync = (id: string, blob?: Buffer) =>
    gw.call('POST', '/v1/agents/sync', {
      token: t.factoryKey,
      appId: t.appId,
      body: {
        schemaVersion: 1,
        sessions: [sessionDoc({ id, startedAt: '2026-10-30T10:00:00Z', repo: 'acme/api', turns: [turn] })],
        ...(blob
          ? {
              blobs: [
                {
                  sha256: crypto.createHash('sha256').update(blob).digest('hex'),
                  mediaType: 'image/png',
                  bytes: blob.length,
                  data: blob.toString('base64'),
                },
              ],
            }
          : {}),
      },
    });

  it('keeps every session acknowledged before the backup, every blob, and a verifiable audit chain', async () => {
    const blobs = Array.from({ length: 5 }, (_, i) => Buffer.from(`image ${i} ${crypto.randomUUID()}`));
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await sync(`before-${i}`, blobs[i]);
      expect(r.status).toBe(200);
      acknowledged.push(`before-${i}`);
    }
    // Ingest goes on while the backup runs.
    let stop = false;
    let during = 0;
    const ingesting = (async () => {
      while (!stop) {
        await sync(`during-${during++}`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    const parent = testTempDir('attest-backup-');
    dirs.push(parent);
    const target = path.join(parent, 'backup');
    await new Promise((r) => setTimeout(r, 20));
    const report = backupDataDir(gw.config.dataDir, target);
    stop = true;
    await ingesting;
    expect(report.blobs).toBe(5);
    expect(() => backupDataDir(gw.config.dataDir, target)).toThrow(/not empty/);

    const fresh = path.join(parent, 'restored');
    restoreDataDir(target, fresh);
    expect(() => restoreDataDir(target, fresh)).toThrow(/not empty/);
    restored = await startGateway({ env: { ATTEST_DATA_DIR: fresh, ATTEST_KEY_PEPPER: gw.config.keyPepper ?? '' } });
    const as = { token: t.factoryKey, appId: t.appId };
    for (const id of acknowledged) expect((await restored.call('GET', `/v1/sessions/${id}`, as)).status, id).toBe(200);
    for (const blob of blobs) {
      const sha = crypto.createHash('sha256').update(blob).digest('hex');
      const bytes = await restored.app.attest.blobs.get(sha);
      expect(bytes?.equals(blob)).toBe(true);
    }
    const verify = await restored.call('GET', `/v1/orgs/${t.orgName}/audit-log/verify`, { token: t.managementKey });
    expect(verify.status).toBe(200);
    expect(verify.body.data.intact).toBe(true);
  });
});
