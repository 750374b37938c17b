// The gateway's log destination: request lines gathered in memory and written to stdout in batches.
import { pino } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** Lines are handed to the writer once this many characters have gathered, or when the timer runs. */
export const LOG_BATCH_CHARS = 16 * 1024;
/** The longest a line waits in memory on a quiet gateway. */
export const LOG_FLUSH_MS = 200;

/**
 * What pino writes each line to. Lines wait in an array until {@link LOG_BATCH_CHARS} have gathered or
 * {@link LOG_FLUSH_MS} have passed; then they go to sonic-boom (pino's own asynchronous writer) as one
 * string, which it writes with one `write` system call.
 *
 * Why not sonic-boom's own `minLength`: its `write` measures the byte length of everything it holds on every
 * line (flattening the string built so far), so holding more lines costs more per line. At 4 KiB it was
 * cheap but wrote every 16 lines or so, and each write wakes a libuv thread-pool thread (a futex wake-up).
 * Gathered here, sixteen kilobytes cost one join, and a read costs a few percent less server CPU than with
 * sonic-boom's own batching at 4 or 16 KiB (`npm run bench -- core --only api-keys`).
 *
 * Nothing is lost on a clean stop or a crash: `flushSync` (Fastify's onClose, pino's `fatal`) hands the
 * held lines over and writes them synchronously, and the writer's own `flush` and `flushSync`, which
 * pino's exit hook calls on exit (an uncaught exception included), hand them over first. Only a SIGKILL
 * loses what is held: at most {@link LOG_FLUSH_MS} of lines, as before.
 */
export class BatchedLogDestination {
  private lines: string[] = [];
  private chars = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly out: SonicBoom) {
    const ownFlush = out.flush.bind(out);
    const ownFlushSync = out.flushSync.bind(out);
    // pino registered its exit hook on the writer (pino.destination): held lines must reach it first.
    out.flush = (cb?: (err?: Error) => void) => {
      this.handOver();
      ownFlush(cb);
    };
    out.flushSync = () => {
      this.handOver();
      ownFlushSync();
    };
    this.timer = setInterval(() => this.handOver(), LOG_FLUSH_MS);
    this.timer.unref();
  }

  /** Opens stdout (or another descriptor) for the gateway's lines. */
  static toDescriptor(fd: number): BatchedLogDestination {
    return new BatchedLogDestination(
      pino.destination({ dest: fd, sync: false, minLength: 0, maxWrite: 4 * LOG_BATCH_CHARS }),
    );
  }

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= LOG_BATCH_CHARS) this.handOver();
    return true;
  }

  /** Writes every held line before returning (pino's `fatal` and Fastify's onClose call it). */
  flushSync(): void {
    this.out.flushSync();
  }

  /** Stops the timer and writes what is held. */
  close(): void {
    clearInterval(this.timer);
    try {
      this.out.flushSync();
    } catch {
      // nothing pending, or the descriptor is already closed
    }
  }

  private handOver(): void {
    if (this.lines.length === 0) return;
    const batch = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.out.write(batch);
  }
}
