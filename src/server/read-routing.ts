// Which store a request reads: the primary, or the read replica (DATABASE_READ_URL) for the routes that declare
// `reads: 'replica'` (the dashboard's aggregates and lists, which never write). The API promises read-your-writes
// everywhere else, and on those routes too for a caller that wrote lately: a credential that sent a write in the
// last ATTEST_READ_PRIMARY_SECONDS reads the primary, so a list or tile read right after its own sync or delete
// sees it whatever the replica's lag. docs/scale.md says what this holds across several gateway processes.
import type { Db } from '../db/connection.js';
import type { Clock } from './clock.js';

/** Methods that never write: any other method marks its credential as a recent writer. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class ReadRouting {
  /** Credential id → when it last sent a write (ms), oldest first (re-inserted on each write). */
  private readonly lastWrite = new Map<string, number>();
  private readonly windowMs: number;

  constructor(
    private readonly primary: Db,
    /** The replica, or null when none is configured (every read on the primary). */
    private readonly replica: Db | null,
    private readonly clock: Clock,
    windowSeconds: number,
  ) {
    this.windowMs = windowSeconds * 1000;
  }

  /** Whether reads can go anywhere but the primary at all. */
  get enabled(): boolean {
    return this.replica !== null;
  }

  /**
   * The store a request of `method` by `credentialId` reads, on a route that may read the replica. Noted
   * before the handler runs, so a write is remembered even when the caller reads again before it answers.
   */
  storeFor(method: string, credentialId: string | null, replicaRoute: boolean): Db {
    if (this.replica === null) return this.primary;
    const now = this.clock.now();
    if (!SAFE_METHODS.has(method)) {
      if (credentialId !== null) this.noteWrite(credentialId, now);
      return this.primary;
    }
    if (!replicaRoute) return this.primary;
    const wrote = credentialId === null ? undefined : this.lastWrite.get(credentialId);
    return wrote !== undefined && now - wrote < this.windowMs ? this.primary : this.replica;
  }

  private noteWrite(credentialId: string, now: number): void {
    this.lastWrite.delete(credentialId);
    this.lastWrite.set(credentialId, now);
    // Forget writers past the window, oldest first: the map holds only the credentials that wrote lately.
    for (const [id, at] of this.lastWrite) {
      if (now - at < this.windowMs) break;
      this.lastWrite.delete(id);
    }
  }
}
