// Cost and sessions per UTC day (GET /v1/metrics/trends), drawn with uPlot: cost on the left axis, sessions
// on the right.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface TrendPoint {
  date: string;
  sessions: number;
  costUsd: number;
}

export function TrendChart({ points }: { points: TrendPoint[] }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const node = el.current;
    if (!node) return;
    const css = getComputedStyle(document.documentElement);
    const accent = css.getPropertyValue('--accent').trim() || '#2457c5';
    const ok = css.getPropertyValue('--ok').trim() || '#1a7f37';
    const fg = css.getPropertyValue('--fg-soft').trim() || '#5b636d';
    const xs = points.map((p) => Date.parse(`${p.date}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(320, node.clientWidth),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, usd: {}, n: {} },
        axes: [
          { stroke: fg },
          { scale: 'usd', stroke: fg, values: (_u, v) => v.map((x) => `$${x}`) },
          { scale: 'n', side: 1, stroke: fg, grid: { show: false } },
        ],
        series: [
          {},
          {
            label: 'Cost (USD)',
            scale: 'usd',
            stroke: accent,
            width: 2,
            value: (_u, v) => (v == null ? '—' : `$${v.toFixed(2)}`),
          },
          { label: 'Sessions', scale: 'n', stroke: ok, width: 2 },
        ],
      },
      [xs, points.map((p) => p.costUsd), points.map((p) => p.sessions)],
      node,
    );
    const resize = () => plot.setSize({ width: Math.max(320, node.clientWidth), height: 220 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [points]);
  return (
    <div
      ref={el}
      className="trend-chart"
      data-testid="trend-chart"
      role="img"
      aria-label={`Cost and sessions per day, ${points.length} days`}
    />
  );
}
