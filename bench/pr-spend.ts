// PR spend tiles alone: `npx tsx bench/pr-spend.ts [--sessions 100000]` (DATABASE_URL=postgres://... for
// PostgreSQL). Seeds N sessions as bench/dashboard.ts does, then times GET /v1/metrics/overview (whose tiles
// compute the PR spend of two windows on every read) warm, with and without the index of migration 0017.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/server/config.js';
import { mintCredential } from '../src/server/auth/mint.js';
import { PERMISSIONS } from '../src/server/permissions.js';
import { seed } from './metrics.js';

const i = process.argv.indexOf('--sessions');
const sessions = i >= 0 ? Number(process.argv[i + 1]) : 100_000;
const databaseUrl = process.env.DATABASE_URL ?? null;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-bench-spend-'));
const schema = databaseUrl ? `bench_${crypto.randomBytes(4).toString('hex')}` : undefined;
if (databaseUrl && schema) {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`create schema ${schema}`);
  await c.end();
}
const config = loadConfig({
  ATTEST_DATA_DIR: dataDir,
  ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
  LOG_LEVEL: 'warn',
  ...(databaseUrl && schema ? { DATABASE_URL: databaseUrl, ATTEST_DATABASE_SCHEMA: schema } : {}),
});
const app = await buildApp({ config });
const gw = app.attest;
const boot = gw.bootstrap;
const now = gw.clock.now();
const key = await mintCredential(gw.db, gw.pepper, now, {
  kind: 'factory_key',
  name: 'bench',
  orgId: boot.orgId,
  appId: boot.appId,
  createdBy: boot.userId,
  permissions: [...PERMISSIONS],
});
const headers = { authorization: `Bearer ${key.plaintext}`, 'x-outerlayer-app-id': boot.appId };
await gw.db.transaction().execute((trx) => seed(trx, boot.orgId, boot.appId, sessions, 90, now));
if (gw.dialect === 'postgres') await sql`analyze`.execute(gw.db);
const overview = async () => {
  const s = performance.now();
  const res = await app.inject({ method: 'GET', url: '/v1/metrics/overview', headers });
  if (res.statusCode !== 200) throw new Error(res.body);
  return {
    ms: performance.now() - s,
    tiles: JSON.stringify(
      (
        JSON.parse(res.body) as {
          data: { tiles: { mergedPrs: unknown; costPerMergedPrUsd: unknown; unshippedCostUsd: unknown } };
        }
      ).data.tiles,
    ),
  };
};
await overview(); // builds the rollups
const time = async (label: string) => {
  const times: number[] = [];
  let tiles = '';
  for (let n = 0; n < 15; n++) {
    const r = await overview();
    times.push(r.ms);
    tiles = r.tiles;
  }
  times.sort((a, b) => a - b);
  const load = os.loadavg()[0]!.toFixed(1);
  console.log(
    `${gw.dialect} ${sessions} sessions, ${label}: overview p50 ${times[7]!.toFixed(1)} ms, min ${times[0]!.toFixed(1)} ms (load ${load})`,
  );
  return tiles;
};
const withIndex = await time('with sessions_spend_window');
await sql`drop index sessions_spend_window`.execute(gw.db);
if (gw.dialect === 'postgres') await sql`analyze`.execute(gw.db);
const without = await time('without it');
console.log(withIndex === without ? 'tiles identical' : `TILES DIFFER: ${withIndex} vs ${without}`);
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (databaseUrl && schema) {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`drop schema if exists ${schema} cascade`);
  await c.end();
}
