// PR spend tiles alone: `npx tsx bench/pr-spend.ts [--sessions 100000]` (DATABASE_URL=postgres://... for
// PostgreSQL). Seeds N sessions as bench/dashboard.ts does, then times GET /v1/metrics/overview (whose tiles
// compute the PR spend of two windows on every read) warm, with and without the index of migration 0017.
import os from 'node:os';
import { sql } from 'kysely';
import { seededGateway } from './seed.js';

const i = process.argv.indexOf('--sessions');
const sessions = i >= 0 ? Number(process.argv[i + 1]) : 100_000;
const { app, gw, headers, close } = await seededGateway({ name: 'spend', sessions });
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
    `${gw.dialect} ${sessions} sessions, ${label}: overview p50 ${times[7]!.toFixed(1)} ms, min ` +
      `${times[0]!.toFixed(1)} ms (load ${load})`,
  );
  return tiles;
};
const withIndex = await time('with sessions_spend_window');
await sql`drop index sessions_spend_window`.execute(gw.db);
const without = await time('without it');
console.log(withIndex === without ? 'tiles identical' : `TILES DIFFER: ${withIndex} vs ${without}`);
await close();
