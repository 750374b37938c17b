/// <reference lib="dom" />
// What the browser tests put in a factory, all through the API: sessions (the fixture transcripts, raw ones
// converted by src/capture), a subagent, artifacts (a real PNG, a WebM recorded by the browser itself, an HTML
// report, a log), CI results with history, and a work item with criteria and findings.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import type { Tenant, TestGateway } from '../helpers/gateway.js';
import { canonical, raw, variant, type Doc } from '../areas/sessions/fixtures.js';
import { claudeImageBlobs } from '../../src/capture/index.js';

// ---- a real PNG ---------------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
/** A w×h RGB PNG: a diagonal gradient, so it is visibly an image. */
export function png(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    const o = y * (w * 3 + 1);
    rows[o] = 0; // filter: none
    for (let x = 0; x < w; x++) {
      rows[o + 1 + x * 3] = Math.round((x / w) * 255);
      rows[o + 2 + x * 3] = Math.round((y / h) * 255);
      rows[o + 3 + x * 3] = 160;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A ~2.5 s WebM (VP8) recorded from an animated canvas by the browser under test: no ffmpeg needed. */
export async function webm(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    const b64 = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 120;
      document.body.appendChild(canvas);
      const g = canvas.getContext('2d')!;
      const rec = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const parts: Blob[] = [];
      rec.ondataavailable = (e) => parts.push(e.data);
      const done = new Promise<void>((r) => {
        rec.onstop = () => r();
      });
      rec.start(250);
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        const frame = () => {
          const t = performance.now() - t0;
          g.fillStyle = `hsl(${(t / 10) % 360} 70% 50%)`;
          g.fillRect(0, 0, 160, 120);
          g.fillStyle = '#fff';
          g.fillRect((t / 20) % 160, 50, 20, 20);
          if (t < 2500) requestAnimationFrame(frame);
          else resolve();
        };
        frame();
      });
      rec.stop();
      await done;
      const buf = new Uint8Array(await new Blob(parts, { type: 'video/webm' }).arrayBuffer());
      let s = '';
      for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode(...buf.subarray(i, i + 0x8000));
      return btoa(s);
    });
    return Buffer.from(b64, 'base64');
  } finally {
    await page.close();
  }
}

// ---- seeding through the API --------------------------------------------------------------------------

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

export const PR = { repository: 'acme/acme-api', number: 481 } as const;
export const REPORT_HTML =
  '<!doctype html><html><body><h1>Playwright report</h1><p id="summary">12 passed, 0 ' +
  'failed</p><script>document.body.dataset.ran = "yes"</script></body></html>';
export const LOG_TEXT = 'npm test\n> vitest run\n✓ rate-limit window floor (3 tests)\nTest Files 1 passed (1)\n';

export const RAW_WITH_IMAGES = 's06-large-43526e01.jsonl';
export const RAW_TITLE = 'Raw transcript with pasted screenshots';

export interface Seeded {
  /** sessionId → traceId */
  traces: Map<string, string>;
  artifacts: { image: string; video: string; report: string; log: string };
  workItemId: string;
  bigSessionId: string;
  rawSessionId: string;
}

/** The answer's `data`; a step the API refuses throws with its name, the status and the start of the answer. */
export async function ok(p: Promise<{ status: number; text: string; body: any }>, what: string): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await p;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 400)}`);
  return r.body?.data;
}

/** A session of `n` turns (user/assistant alternating), each with a text the test can look for. */
export function bigSession(n: number): Doc {
  return variant(canonical('full'), (d) => {
    d.id = '0b0b0b0b-1111-4222-8333-444455556666';
    d.title = `Long refactor with ${n} turns`;
    d.outcome = null;
    delete d.outcome;
    d.events = [];
    const start = Date.parse('2026-07-02T09:00:00.000Z');
    d.startedAt = new Date(start).toISOString();
    d.endedAt = new Date(start + n * 1000).toISOString();
    d.totals.wallClockMs = n * 1000;
    d.turns = Array.from({ length: n }, (_, i) => ({
      index: i,
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: `turn number ${i} of the long session`,
      ts: new Date(start + i * 1000).toISOString(),
      toolCalls:
        i % 2 === 1
          ? [
              {
                name: 'Bash',
                status: i % 10 === 1 ? 'error' : 'ok',
                isEdit: false,
                startTs: new Date(start + i * 1000 + 200).toISOString(),
                durationMs: 100,
              },
            ]
          : [],
      ...(i % 2 === 1 ? { model: 'claude-opus-4-8', usage: { in: 10, out: 20, cacheRead: 0, cacheCreate: 0 } } : {}),
    }));
  });
}

export async function seedFactory(gw: TestGateway, t: Tenant, browser: Browser): Promise<Seeded> {
  const auth = { token: t.factoryKey, appId: t.appId };
  // The full fixture with a screenshot pasted into its first user turn (the image travels as a blob).
  const pastedPng = png(240, 150);
  const pastedSha = sha(pastedPng);
  const full = variant(canonical('full'), (d) => {
    d.turns[0].images = [{ sha256: pastedSha, mediaType: 'image/png', bytes: pastedPng.length }];
  });
  const sub = canonical('subagent-redacted');
  const big = bigSession(1200);
  const synced = await ok(
    gw.call('POST', '/v1/agents/sync', {
      ...auth,
      body: {
        schemaVersion: 1,
        sessions: [full, sub, big],
        blobs: [
          { sha256: pastedSha, mediaType: 'image/png', bytes: pastedPng.length, data: pastedPng.toString('base64') },
        ],
      },
    }),
    'sync',
  );
  if (synced.rejected.length > 0) throw new Error(`sync rejected: ${JSON.stringify(synced.rejected)}`);
  // A raw Claude Code transcript with pasted screenshots, converted by the capture module and sent with its
  // image blobs, in another repository (so the sessions page's default repository pin hides it and says so).
  const rawText = fs.readFileSync(
    new URL(`../fixtures/outerlayer-session-schema/raw/${RAW_WITH_IMAGES}`, import.meta.url),
    'utf8',
  );
  const pasted = variant(raw(RAW_WITH_IMAGES), (d) => {
    d.env = { ...(d.env ?? {}), gitRepo: 'github.com/acme/web' };
    d.title = RAW_TITLE;
  });
  const blobs = claudeImageBlobs(rawText);
  const syncedRaw = await ok(
    gw.call('POST', '/v1/agents/sync', { ...auth, body: { schemaVersion: 1, sessions: [pasted], blobs } }),
    'sync raw',
  );
  if (syncedRaw.rejected.length > 0 || syncedRaw.rejectedBlobs.length > 0)
    throw new Error(`sync rejected: ${JSON.stringify(syncedRaw)}`);

  const listed = await ok(
    gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1&limit=100', { token: t.loginToken, appId: t.appId }),
    'list',
  );
  const traces = new Map<string, string>(
    (listed.sessions as Doc[]).map((s) => [s.isSubagent ? `${s.sessionId}#sub` : s.sessionId, s.traceId]),
  );

  const item = await ok(
    gw.call('POST', '/v1/work-items', {
      ...auth,
      body: {
        tracker: 'github',
        trackerKey: 'acme/acme-api#470',
        title: 'Rate limiter resets at the right boundary',
        repository: 'acme/acme-api',
        stage: 'in_review',
      },
    }),
    'work item',
  );
  await ok(
    gw.call('PUT', `/v1/work-items/${item.id}/criteria`, {
      ...auth,
      body: {
        criteria: [
          {
            id: 'AC-1',
            text: 'A request at the window edge is counted in the new window',
            proof: 'screenshot of the dashboard',
          },
          { id: 'AC-2', text: 'The regression test runs in CI', proof: 'CI log' },
          { id: 'AC-3', text: 'The limits page documents the window', proof: null },
        ],
      },
    }),
    'criteria',
  );
  await ok(
    gw.call('POST', `/v1/work-items/${item.id}/findings`, {
      ...auth,
      body: {
        source: 'reviewer-bot',
        about: 'change',
        severity: 'medium',
        title: 'Window floor is computed twice',
        path: 'src/rate-limit.ts',
        line: 42,
        prNumber: PR.number,
      },
    }),
    'finding',
  );

  const video = await webm(browser);
  const upload = async (bytes: Buffer, fields: Record<string, unknown>) =>
    (
      await ok(
        gw.call('POST', '/v1/artifacts', {
          ...auth,
          body: {
            schemaVersion: 1,
            artifact: {
              clientArtifactId: crypto.randomUUID(),
              bytes: bytes.length,
              sha256: sha(bytes),
              emittedAt: '2026-07-01T14:40:00.000Z',
              repository: PR.repository,
              prNumber: PR.number,
              workItemId: item.id,
              ...fields,
            },
            blob: { data: bytes.toString('base64') },
          },
        }),
        'artifact',
      )
    ).id as string;
  const artifacts = {
    image: await upload(png(320, 200), {
      filename: 'window-edge.png',
      mediaType: 'image/png',
      caption: 'Requests at the window edge land in the new window',
      criterionId: 'AC-1',
      session: { sessionId: full.id, turnIndex: 1 },
    }),
    video: await upload(video, {
      filename: 'walkthrough.webm',
      mediaType: 'video/webm',
      caption: 'Walkthrough of the limiter',
    }),
    report: await upload(Buffer.from(REPORT_HTML), {
      filename: 'report.html',
      mediaType: 'text/html',
      caption: 'Playwright HTML report',
    }),
    log: await upload(Buffer.from(LOG_TEXT), {
      filename: 'ci.log',
      mediaType: 'text/plain',
      caption: 'CI log of the regression test',
      criterionId: 'AC-2',
    }),
  };

  const emit = (name: string, result: 'pass' | 'fail', run: number, minute: number) =>
    ok(
      gw.call('POST', '/v1/emitted-results', {
        ...auth,
        body: {
          schemaVersion: 1,
          emit: {
            clientEmitId: crypto.randomUUID(),
            name,
            result,
            link: `https://ci.example.com/runs/${run}`,
            emittedAt: new Date(Date.parse('2026-07-01T14:30:00Z') + minute * 60_000).toISOString(),
            repository: PR.repository,
            prNumber: PR.number,
            headSha: 'a1b2c3d4e5f6a7b8c9d0',
          },
        },
      }),
      'emit',
    );
  await emit('unit-tests', 'fail', 101, 0);
  await emit('unit-tests', 'pass', 102, 5);
  await emit('e2e', 'pass', 103, 6);

  return { traces, artifacts, workItemId: item.id, bigSessionId: big.id, rawSessionId: pasted.id };
}
