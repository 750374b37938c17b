// Writes the responses one turn of the event loop produced together, in its check phase.
import { setImmediate } from 'node:timers';

type OnSendDone = (err: Error | null, payload?: unknown) => void;

/**
 * An `onSend` hook that holds each response until the turn's I/O callbacks have all run, then lets them go
 * in the order they were held.
 *
 * Why: on loopback (a proxy or a load generator on the same host) the kernel hands a response to the
 * receiving process inside the sender's `writev`, and when that process is asleep it wakes it on its own
 * CPU: an inter-processor interrupt the sender pays, about a sixth of the server's CPU for a small
 * authenticated read on a 2-core machine. Written one after another, the first response of a turn wakes the
 * client and the rest find it awake: about a third less server CPU a read, p99 unchanged
 * (`npm run bench -- core`; docs/performance.md, Authenticated reads).
 *
 * Only answers to requests without a body are held (app.ts): a held answer keeps its request alive a turn
 * longer, which for a sync meant megabytes of parsed body. A response waits at most for the other requests
 * of its own turn; a lone request waits for nothing but the step from the poll phase to the check phase.
 * Order is kept, so pipelined requests on one connection still answer in order.
 */
export class SendCoalescer {
  private held: OnSendDone[] = [];
  private payloads: unknown[] = [];
  private scheduled = false;

  constructor(private readonly onError: (err: unknown) => void) {}

  hold(done: OnSendDone, payload: unknown): void {
    this.held.push(done);
    this.payloads.push(payload);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.release);
    }
  }

  /** How many responses are held now (for tests). */
  get pending(): number {
    return this.held.length;
  }

  private readonly release = (): void => {
    this.scheduled = false;
    // Take the lists first: a response held while these are written waits for the next check phase.
    const held = this.held;
    const payloads = this.payloads;
    this.held = [];
    this.payloads = [];
    for (let i = 0; i < held.length; i++) {
      try {
        held[i]!(null, payloads[i]);
      } catch (err) {
        // One failed write must not strand the responses after it.
        this.onError(err);
      }
    }
  };
}
