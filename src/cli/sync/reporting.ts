import { createRequire } from 'node:module';
import type { AgentSessionV1, CaptureTier } from '../../capture/index.js';
import { priceSession } from '../../pricing/cost.js';
import type { Prepared } from './batches.js';

export interface SyncFlags {
  since?: string;
  dryRun?: boolean;
  json?: boolean;
  tier?: string;
  progress?: boolean;
}

export interface Reporter {
  start(total: number): void;
  tick(sent: number, note: string): void;
  line(text: string): void;
  stop(): void;
}

export function reporter(flags: SyncFlags): Reporter {
  const tty = Boolean(process.stderr.isTTY) && !flags.json && flags.progress !== false;
  if (tty) {
    // Required here, not imported at the top: every `attest` command (and `attest serve`) loads this file.
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof import('cli-progress');
    const bar = new cliProgress.SingleBar(
      {
        format: 'sync [{bar}] {value}/{total} sessions {note}',
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (total) => bar.start(total, 0, { note: '' }),
      tick: (sent, note) => bar.update(sent, { note }),
      line: (text) => bar.update({ note: text }),
      stop: () => bar.stop(),
    };
  }
  const quiet = Boolean(flags.json);
  const write = (t: string) => {
    if (!quiet) process.stderr.write(`${t}\n`);
  };
  return {
    start: (total) => write(`sync: ${total} session(s) to send`),
    tick: (sent, note) => write(`sync: ${sent} sent ${note}`),
    line: write,
    stop: () => undefined,
  };
}

export function summarize(
  prepared: Prepared[],
  tier: CaptureTier,
  found: number,
  changed: number,
  skipped: { path: string; reason: string }[],
  batches: number,
) {
  const sessions = new Map<string, AgentSessionV1[]>();
  for (const p of prepared) sessions.set(p.session.id, [...(sessions.get(p.session.id) ?? []), p.session]);
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  let turns = 0;
  let toolCalls = 0;
  let costMicros = 0;
  let unpriced = 0;
  for (const parts of sessions.values()) {
    const whole = parts[0]!;
    tokens.input += whole.totals.inputTokens;
    tokens.output += whole.totals.outputTokens;
    tokens.cacheRead += whole.totals.cacheReadTokens;
    tokens.cacheCreation += whole.totals.cacheCreationTokens;
    const allTurns = parts.flatMap((p) => p.turns);
    turns += allTurns.length;
    toolCalls += allTurns.reduce((n, t) => n + t.toolCalls.length, 0);
    const cost = priceSession(allTurns);
    costMicros += cost.costMicros;
    if (cost.status !== 'complete') unpriced += 1;
  }
  return {
    tier,
    filesFound: found,
    filesChanged: changed,
    sessions: sessions.size,
    batches,
    bytes: prepared.reduce((n, p) => n + p.bytes, 0),
    turns,
    toolCalls,
    tokens,
    estimatedCostUsd: costMicros / 1e6,
    sessionsNotFullyPriced: unpriced,
    skipped,
  };
}

export function printDryRun(
  summary: ReturnType<typeof summarize> & { images: number; imagesLeftOut: number },
  prepared: Prepared[],
): void {
  const w = (t: string) => process.stdout.write(`${t}\n`);
  w(`Dry run: nothing was sent. At tier "${summary.tier}" this would leave the machine:`);
  w(
    `  ${summary.sessions} session(s) from ${summary.filesChanged} new or grown file(s) (${summary.filesFound} ` +
      `found), in ${summary.batches} request(s), ${summary.bytes} bytes`,
  );
  w(
    `  ${summary.turns} turns, ${summary.toolCalls} tool calls${summary.images ? `, ${summary.images} image(s)` : ''}` +
      `${summary.imagesLeftOut ? ` (${summary.imagesLeftOut} image(s) over the limits stay local)` : ''}`,
  );
  w(
    `  tokens: input ${summary.tokens.input}, output ${summary.tokens.output}, cache read ${summary.tokens.cacheRead}` +
      `, cache creation ${summary.tokens.cacheCreation}`,
  );
  w(
    `  estimated cost: $${summary.estimatedCostUsd.toFixed(4)}` +
      `${summary.sessionsNotFullyPriced ? ` (${summary.sessionsNotFullyPriced} session(s) with unpriced models)` : ''}`,
  );
  w(
    summary.tier === 'full'
      ? '  content: message text, thinking, tool inputs and outputs (secrets scrubbed)'
      : summary.tier === 'redacted'
        ? '  content: no message text; paths, branch, repository, file names, PR links and error signatures (secrets ' +
          'scrubbed)'
        : '  content: numbers only (no paths, branches, files or PR links)',
  );
  for (const p of prepared) {
    const s = p.session;
    w(
      `  - ${s.id} ${s.agent.type}${s.chunk ? ` part ${s.chunk.part}/${s.chunk.of}` : ''} ${s.startedAt} turns=` +
        `${s.turns.length} tokens in=${s.totals.inputTokens} out=${s.totals.outputTokens} ${p.file.path}`,
    );
  }
  for (const s of summary.skipped) w(`  skipped ${s.path}: ${s.reason}`);
  w('Use --json to print the exact request bodies.');
}
