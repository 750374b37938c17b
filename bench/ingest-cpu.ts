// The event loop's own work on one POST /v1/agents/sync of 25 fixture sessions, step by step, without a
// server or a database: `npx tsx bench/ingest-cpu.ts [--reps 40]`. Each step runs `reps` times over the same
// body and the table prints the fastest run per session (the least disturbed by the other core's load), so
// two versions of a step compare within a few percent where a whole ingest run moves by ten.
import zlib from 'node:zlib';
import Fastify from 'fastify';
import { brotliOptions, summarize, encodeDocument, type AgentSessionV1 } from '../src/areas/sessions/document.js';
import { inspect } from '../src/server/hostile-input.js';
import { fixtureSessions } from './sessions.js';

const SESSIONS = 25;
const i = process.argv.indexOf('--reps');
const reps = i >= 0 ? Number(process.argv[i + 1]) : 40;

const sessions = fixtureSessions(SESSIONS, 'ingest-cpu') as unknown as AgentSessionV1[];
const body = JSON.stringify({ schemaVersion: 1, sessions });
const parsed = JSON.parse(body) as { sessions: AgentSessionV1[] };
const raws = parsed.sessions.map((d) => Buffer.from(JSON.stringify(d)));

/** The fastest of `reps` runs of `run` (after ten to warm up), in µs per session. */
async function fastest(run: () => unknown): Promise<number> {
  for (let k = 0; k < 10; k++) await run();
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < reps; k++) {
    const start = process.hrtime.bigint();
    await run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000);
  }
  return best / SESSIONS;
}

/** Fastify parsing the body as the gateway configures it, or with its default prototype-poisoning checks. */
async function parsingServer(poisoning: 'ignore' | 'error') {
  const app = Fastify({
    logger: false,
    bodyLimit: 16 * 1024 * 1024,
    onProtoPoisoning: poisoning,
    onConstructorPoisoning: poisoning,
  });
  app.post('/', async () => ({}));
  await app.ready();
  return () => app.inject({ method: 'POST', url: '/', payload: body, headers: { 'content-type': 'application/json' } });
}

const steps: [string, () => unknown][] = [
  ['body: JSON.parse', () => JSON.parse(body)],
  ["body through Fastify, poisoning checks 'ignore' (the gateway)", await parsingServer('ignore')],
  ["body through Fastify, poisoning checks 'error' (Fastify's default)", await parsingServer('error')],
  ['body: NUL, depth and prototype-key walk (hostile-input.ts)', () => inspect(parsed)],
  [
    'summarize and price each session',
    () => {
      for (const d of parsed.sessions) summarize(d);
    },
  ],
  [
    'encode each document (JSON.stringify + Brotli q1)',
    () => {
      for (const d of parsed.sessions) encodeDocument(d);
    },
  ],
  [
    '  of which JSON.stringify',
    () => {
      for (const d of parsed.sessions) JSON.stringify(d);
    },
  ],
  [
    '  of which Brotli q1 (fitted window)',
    () => {
      for (const r of raws) zlib.brotliCompressSync(r, brotliOptions(r.length));
    },
  ],
];

const turns = parsed.sessions.reduce((n, d) => n + d.turns.length, 0);
console.log(
  `node ${process.version}; one sync body of ${SESSIONS} fixture sessions, ${(body.length / 1024).toFixed(0)} KiB, ` +
    `${turns} turns; fastest of ${reps} runs`,
);
console.log();
const width = Math.max(...steps.map(([name]) => name.length));
console.log(`${'step'.padEnd(width)}  µs/session`);
console.log(`${'-'.repeat(width)}  ----------`);
for (const [name, run] of steps) console.log(`${name.padEnd(width)}  ${(await fastest(run)).toFixed(1).padStart(10)}`);
