// Times relative to now, as the work board and the hosts page read them, and a clock that ticks while a page
// is open. "Now" is the browser's clock: the API states instants (expiresAt, lastHeartbeatAt), not ages.
import { useEffect, useState } from 'react';

/** Date.now(), re-read every `everyMs` while the component is mounted. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}

/**
 * Time left on a lease: "expired" once `expiresAt` is reached (the gateway frees the item at that very
 * millisecond), "40 s left" under a minute, whole minutes below an hour ("12 min left": 12 min 59 s is
 * still 12), then hours and minutes ("2 h 5 min left").
 */
export function leaseLeft(expiresAt: string, now: number): string {
  const ms = Date.parse(expiresAt) - now;
  if (!(ms > 0)) return 'expired';
  if (ms < 60_000) return `${Math.ceil(ms / 1000)} s left`;
  const min = Math.floor(ms / 60_000);
  if (min < 60) return `${min} min left`;
  const h = Math.floor(min / 60);
  return `${h} h${min % 60 ? ` ${min % 60} min` : ''} left`;
}

/** Age of an instant: "42 s ago", "3 min ago", "5 h ago", "2 d ago" (whole units, rounded down). */
export function ago(at: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(at)) / 1000));
  if (s < 60) return `${s} s ago`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}
