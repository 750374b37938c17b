// A V8 CPU profile of this process over a measured part of a bench, written where an environment variable says.
import fs from 'node:fs';
import path from 'node:path';

export interface CpuProfile {
  /** Stop sampling and write <dir>/<name>.cpuprofile. */
  stop(name: string): Promise<void>;
}

/** Starts sampling (every 200 µs) when `dir` is set; null otherwise, so the bench runs unprofiled. */
export async function startCpuProfile(dir: string | undefined): Promise<CpuProfile | null> {
  if (!dir) return null;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}
