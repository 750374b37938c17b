// A task the server runs on a timer and tests run on demand (the PR comment worker, housekeeping): runs never
// overlap (a call while one is in progress shares it), the timer never keeps the process alive, and stop()
// waits for the run in progress.
export class PeriodicTask<R> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<R> | null = null;
  private stoppedFlag = false;

  constructor(
    private readonly task: () => Promise<R>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** True once stop() was called: a long run may end early. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Runs `firstDelayMs` from now, then `intervalMs` after each run ends (0: never). */
  start(intervalMs: number, firstDelayMs = intervalMs): void {
    if (intervalMs <= 0 || this.timer || this.stoppedFlag) return;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        this.run()
          .catch(this.onError)
          .finally(() => {
            if (!this.stoppedFlag) next(intervalMs);
          });
      }, delay);
      this.timer.unref();
    };
    next(firstDelayMs);
  }

  /** Stops the timer and waits for the run in progress. */
  async stop(): Promise<void> {
    this.stoppedFlag = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One run now; concurrent calls share it. */
  run(): Promise<R> {
    if (!this.running) {
      this.running = this.task().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }
}
