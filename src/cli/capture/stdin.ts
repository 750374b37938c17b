// What an agent pipes into a hook or the status line: read whole, but never more than a bound and never for
// longer than a bound (an agent that keeps stdin open must not hold the command). Node built-ins only: this
// runs inside the user's agent.

/** stdin as text: what arrived before it closed, or before `maxBytes` or `waitMs` ran out. */
export function readStdin(maxBytes: number, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, waitMs);
    process.stdin.on('data', (b: Buffer) => {
      size += b.length;
      if (size > maxBytes) done();
      else chunks.push(b);
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}
