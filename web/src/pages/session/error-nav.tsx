// Moving through a transcript's failures (issue 45 §3): a control that shows only the failed tool calls, and
// "next error" / "previous error" (buttons, and the keys n and p) that bring each turn with a failed call into
// view in turn, saying which of how many it is.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { formatInt } from '../../ui/format';
import type { Turn } from './query';

export const isFailed = (status: string) => status === 'error';
export const hasFailedCall = (turn: Turn) => turn.toolCalls.some((c) => isFailed(c.status));

export interface ErrorNav {
  failedOnly: boolean;
  setFailedOnly: (on: boolean) => void;
  /** The turns shown: all of them, or with failedOnly those with a failed call. */
  shown: Turn[];
  /** Positions in `shown` of the turns with a failed call. */
  errors: number[];
  /** Which of `errors` was moved to last (-1: none yet). */
  current: number;
  go: (step: 1 | -1) => number | null;
}

export function useErrorNav(turns: Turn[]): ErrorNav {
  const [failedOnly, setOnly] = useState(false);
  const [current, setCurrent] = useState(-1);
  const shown = useMemo(() => (failedOnly ? turns.filter(hasFailedCall) : turns), [turns, failedOnly]);
  const errors = useMemo(() => shown.flatMap((t, i) => (hasFailedCall(t) ? [i] : [])), [shown]);
  const setFailedOnly = useCallback((on: boolean) => {
    setOnly(on);
    setCurrent(-1);
  }, []);
  /** Moves to the next (1) or previous (-1) error; returns its position in `shown`, null when there is none. */
  const go = useCallback(
    (step: 1 | -1): number | null => {
      if (errors.length === 0) return null;
      const next =
        current === -1
          ? step === 1
            ? 0
            : errors.length - 1
          : Math.min(errors.length - 1, Math.max(0, current + step));
      setCurrent(next);
      return errors[next]!;
    },
    [errors, current],
  );
  return { failedOnly, setFailedOnly, shown, errors, current, go };
}

/** The keys n (next error) and p (previous error), except while typing in a field. */
export function useErrorKeys(move: (step: 1 | -1) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      const typing =
        target instanceof HTMLInputElement ? !['checkbox', 'radio', 'button', 'submit'].includes(target.type) : false;
      if (target && (typing || target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      if (e.key === 'n') move(1);
      else if (e.key === 'p') move(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move]);
}

export function ErrorControls({ nav, total, move }: { nav: ErrorNav; total: number; move: (step: 1 | -1) => void }) {
  const failedCalls = nav.shown.reduce((n, t) => n + t.toolCalls.filter((c) => isFailed(c.status)).length, 0);
  return (
    <div className="filters" data-testid="transcript-controls">
      <label className="inline">
        <input
          type="checkbox"
          name="failedOnly"
          checked={nav.failedOnly}
          onChange={(e) => nav.setFailedOnly(e.target.checked)}
        />{' '}
        Failed calls only
      </label>
      <button
        type="button"
        onClick={() => move(-1)}
        disabled={nav.errors.length === 0}
        aria-keyshortcuts="p"
        title="Previous error (p)"
      >
        ◀ Previous error
      </button>
      <button
        type="button"
        onClick={() => move(1)}
        disabled={nav.errors.length === 0}
        aria-keyshortcuts="n"
        title="Next error (n)"
      >
        Next error ▶
      </button>
      <span className="muted" role="status" data-testid="error-position">
        {nav.errors.length === 0
          ? 'No failed tool call'
          : nav.current === -1
            ? `${formatInt(failedCalls)} failed tool call${failedCalls === 1 ? '' : 's'} in ` +
              `${formatInt(nav.errors.length)} turn${nav.errors.length === 1 ? '' : 's'} (keys n and p)`
            : `Error ${formatInt(nav.current + 1)} of ${formatInt(nav.errors.length)}`}
        {nav.failedOnly && ` · showing ${formatInt(nav.shown.length)} of ${formatInt(total)} turns`}
      </span>
    </div>
  );
}
