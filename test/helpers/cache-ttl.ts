// Issue 15 §1: three Claude Code transcript lines, one assistant message each, written the way Claude Code 2.x
// writes them (message.usage.cache_creation split by TTL), for the capture and the sync tests.
// claude-sonnet-4-6 published prices ($/Mtok): input 3, five-minute cache write 3.75 (1.25 × 3), one-hour
// cache write 6 (2 × 3), cache read 0.3, output 15. $/Mtok × tokens = µ$.
//   5-minute only: 10 × 3 + 20000 × 0.3 + 4000 × 3.75 + 300 × 15 = 30 + 6000 + 15000 + 4500 = 25530 µ$
//   1-hour only:   10 × 3 + 20000 × 0.3 + 4000 × 6    + 300 × 15 = 30 + 6000 + 24000 + 4500 = 34530 µ$
//   mixed:         10 × 3 + 20000 × 0.3 + 2500 × 3.75 + 1500 × 6 + 300 × 15
//                = 30 + 6000 + 9375 + 9000 + 4500 = 28905 µ$
// A whole session of the three: 25530 + 34530 + 28905 = 88965 µ$. Priced all at the five-minute rate, as
// before the change: 3 × 25530 = 76590 µ$.
export const TTL_COSTS_MICROS = {
  fiveMinute: 25_530,
  oneHour: 34_530,
  mixed: 28_905,
  session: 88_965,
  sessionBefore: 76_590,
};

export function ttlTranscript(sessionId: string): string {
  const base = {
    sessionId,
    version: '2.1.170',
    cwd: '/home/dev/app',
    gitBranch: 'main',
    isSidechain: false,
    userType: 'external',
  };
  const assistant = (n: number, ts: string, fiveMinute: number, oneHour: number) => ({
    ...base,
    type: 'assistant',
    uuid: `a${n}`,
    timestamp: ts,
    message: {
      id: `msg_ttl_${n}`,
      model: 'claude-sonnet-4-6',
      role: 'assistant',
      content: [{ type: 'text', text: `reply ${n}` }],
      usage: {
        input_tokens: 10,
        output_tokens: 300,
        cache_read_input_tokens: 20_000,
        cache_creation_input_tokens: fiveMinute + oneHour,
        cache_creation: { ephemeral_5m_input_tokens: fiveMinute, ephemeral_1h_input_tokens: oneHour },
      },
    },
  });
  return [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-07-01T10:00:00.000Z',
      message: { role: 'user', content: 'price my cache writes' },
    },
    assistant(1, '2026-07-01T10:00:05.000Z', 4000, 0),
    assistant(2, '2026-07-01T10:00:10.000Z', 0, 4000),
    assistant(3, '2026-07-01T10:00:15.000Z', 2500, 1500),
  ]
    .map((l) => JSON.stringify(l))
    .join('\n');
}
