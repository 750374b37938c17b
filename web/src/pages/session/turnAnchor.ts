// `#turn-N` on a session URL: the turn a verdict row (or a Verification tab run) points at. The transcript is
// virtualized, so the turn is usually not in the DOM and the browser cannot scroll to it by id: the page asks the
// virtualizer to bring that turn in, and marks it.
import { useEffect, useSyncExternalStore } from 'react';
import { useLocation } from '@tanstack/react-router';
import type { Virtualizer } from '@tanstack/react-virtual';

/** The turn index a URL hash names (`turn-12` or `#turn-12`), or null for any other hash. */
export function turnOfHash(hash: string): number | null {
  const m = /^#?turn-(\d{1,9})$/.exec(hash);
  return m ? Number(m[1]) : null;
}

/** The hash that names a turn, as the router's Link takes it (without '#'). */
export function turnHash(turnIndex: number): string {
  return `turn-${turnIndex}`;
}

function onHashChange(notify: () => void): () => void {
  window.addEventListener('hashchange', notify);
  return () => window.removeEventListener('hashchange', notify);
}

/**
 * The turn the current URL names, or null. The router's location follows its own links (pushState, which fires
 * no hashchange); a hash typed or pasted onto the same page changes only the window's location, so both are
 * listened to and the window's hash is the one read.
 */
export function useMarkedTurn(): number | null {
  useLocation({ select: (l) => l.hash });
  return turnOfHash(useSyncExternalStore(onHashChange, () => window.location.hash));
}

/**
 * Brings the marked turn into view: the transcript's box into the window, then the turn to the top of the box.
 * `position` is the turn's place in the list the virtualizer renders (-1: not there, nothing to scroll).
 * Runs again when the hash names another turn or the list changes.
 */
export function useScrollToTurn(
  v: Virtualizer<HTMLDivElement, Element>,
  box: React.RefObject<HTMLDivElement | null>,
  marked: number | null,
  position: number,
): void {
  useEffect(() => {
    if (marked === null || position < 0) return;
    box.current?.scrollIntoView({ block: 'start' });
    v.scrollToIndex(position, { align: 'start' });
  }, [v, box, marked, position]);
}
