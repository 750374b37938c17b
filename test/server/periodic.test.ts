// PeriodicTask (src/server/periodic.ts), which the PR comment worker and housekeeping run on: runs never
// overlap, concurrent calls share one, the timer goes on after a failed run, and stop() waits for the run in
// progress and ends the timer.
import { describe, expect, it } from 'vitest';
import { PeriodicTask } from '../../src/server/periodic.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PeriodicTask', () => {
  it('concurrent runs share one; a run after it is a new one', async () => {
    let calls = 0;
    let release!: () => void;
    const task = new PeriodicTask(
      async () => {
        calls += 1;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return calls;
      },
      () => undefined,
    );
    const first = task.run();
    const second = task.run();
    release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    const third = task.run();
    release();
    expect(await third).toBe(2);
  });

  it('runs on its timer, goes on after a failure, and stop() waits for the run in progress', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    let inProgress = 0;
    let overlapped = false;
    let finished = 0;
    const task = new PeriodicTask(
      async () => {
        calls += 1;
        inProgress += 1;
        if (inProgress > 1) overlapped = true;
        await tick(5);
        inProgress -= 1;
        finished += 1;
        if (calls === 1) throw new Error('first run fails');
        return calls;
      },
      (err) => errors.push(err),
    );
    task.start(10, 1);
    await expect.poll(() => calls, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('first run fails');
    // Stop in the middle of a run: it finishes before stop() resolves, and no run starts after.
    await expect.poll(() => inProgress, { timeout: 5000, interval: 1 }).toBe(1);
    expect(task.stopped).toBe(false);
    await task.stop();
    expect(task.stopped).toBe(true);
    expect(inProgress).toBe(0);
    const after = calls;
    await tick(50);
    expect(calls).toBe(after);
    expect(finished).toBe(calls);
    expect(overlapped).toBe(false);
  });

  it('an interval of 0 never runs', async () => {
    let calls = 0;
    const task = new PeriodicTask(
      async () => {
        calls += 1;
      },
      () => undefined,
    );
    task.start(0);
    await tick(30);
    expect(calls).toBe(0);
    await task.stop();
  });
});
