// The session's timeline: each turn and each tool call as a point on the time axis, one lane each, drawn with
// uPlot (loaded only when this view opens, so it costs the first page nothing).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SessionDetail, Turn } from './query';
import { formatInt } from '../../ui/format';

const LANES = [
  { label: 'user turn', lane: 5, color: '#2457c5' },
  { label: 'assistant turn', lane: 4, color: '#8250df' },
  { label: 'tool ok', lane: 3, color: '#1a7f37' },
  { label: 'tool error', lane: 2, color: '#cf222e' },
  { label: 'tool denied', lane: 1, color: '#9a6700' },
] as const;

function laneOf(turn: Turn): number {
  return turn.role === 'user' ? 0 : 1;
}

/** uPlot's aligned data: the sorted times, and for each lane its y where a point falls at that time, else null. */
function build(turns: Turn[]): { data: uPlot.AlignedData; points: number } {
  const at: Array<[number, number]> = [];
  for (const t of turns) {
    const ts = t.ts ? Date.parse(t.ts) : NaN;
    if (!Number.isNaN(ts)) at.push([ts / 1000, laneOf(t)]);
    for (const c of t.toolCalls) {
      const cs = c.startTs ? Date.parse(c.startTs) : ts;
      if (Number.isNaN(cs)) continue;
      at.push([cs / 1000, c.status === 'ok' ? 2 : c.status === 'error' ? 3 : 4]);
    }
  }
  const xs = [...new Set(at.map(([x]) => x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const series = LANES.map(() => new Array<number | null>(xs.length).fill(null));
  for (const [x, l] of at) series[l]![index.get(x)!] = LANES[l]!.lane;
  return { data: [xs, ...series] as uPlot.AlignedData, points: at.length };
}

export default function Timeline({ session, turns }: { session: SessionDetail; turns: Turn[] }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const host = el.current;
    if (!host) return;
    const { data } = build(turns);
    const fg = getComputedStyle(document.documentElement).getPropertyValue('--fg-soft').trim() || '#888';
    const plot = new uPlot(
      {
        width: Math.max(320, host.clientWidth - 16),
        height: 240,
        scales: { y: { range: [0.5, 5.5] } },
        axes: [
          { stroke: fg },
          {
            stroke: fg,
            splits: () => LANES.map((l) => l.lane),
            values: (_u, splits) => splits.map((v) => LANES.find((l) => l.lane === v)?.label ?? ''),
            size: 100,
          },
        ],
        series: [
          {},
          ...LANES.map((l) => ({
            label: l.label,
            stroke: l.color,
            fill: l.color,
            paths: () => null,
            points: { show: true, size: 7, fill: l.color, stroke: l.color },
          })),
        ],
        legend: { show: true },
      },
      data,
      host,
    );
    const onResize = () => plot.setSize({ width: Math.max(320, host.clientWidth - 16), height: 240 });
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      plot.destroy();
    };
  }, [turns]);
  return (
    <div className="timeline" data-testid="timeline">
      <p className="muted">
        {formatInt(session.turnCount)} turns, {formatInt(session.toolCallCount)} tool calls (
        {formatInt(session.toolErrorCount)} failed, {formatInt(session.rejectedToolCallCount)} denied)
      </p>
      <div ref={el} />
      {session.events.length > 0 && (
        <>
          <h2>Events</h2>
          <table className="grid">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {(session.events as Array<{ ts?: string; type?: string; data?: unknown }>).map((e, i) => (
                <tr key={i}>
                  <td>{e.ts ? new Date(e.ts).toLocaleTimeString() : '—'}</td>
                  <td>{e.type}</td>
                  <td className="mono">{e.data === undefined ? '' : JSON.stringify(e.data)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
