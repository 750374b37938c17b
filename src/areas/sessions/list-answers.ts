// The session list's answers kept in memory, each with the factory's list version it was read at
// (migration 0054: raised in the writing transaction by every write to a table the list reads). A request whose
// factory still has that version gets the same bytes without reading the list: one indexed read instead of the
// list's statements and the making of its 26 KB answer. A version read before the list's own reads can only be
// older than what they saw, so an answer is never kept under a version newer than its data. Bounded in bytes,
// least recently used first out.
import type { Db, Dialect } from '../../db/connection.js';
import { readRows } from '../../db/prepared.js';

interface KeptAnswer {
  version: number;
  body: Buffer;
}

export class ListAnswers {
  private readonly answers = new Map<string, KeptAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The answer kept for `key` if it was read at `version`; an answer read at another version is dropped. */
  get(key: string, version: number): Buffer | undefined {
    const kept = this.answers.get(key);
    if (kept === undefined) return undefined;
    this.answers.delete(key);
    if (kept.version !== version) {
      this.bytes -= kept.body.length;
      return undefined;
    }
    this.answers.set(key, kept);
    return kept.body;
  }

  set(key: string, version: number, body: Buffer): void {
    if (body.length > this.maxBytes / 8) return;
    const was = this.answers.get(key);
    if (was !== undefined) {
      this.answers.delete(key);
      this.bytes -= was.body.length;
    }
    this.answers.set(key, { version, body });
    this.bytes += body.length;
    for (const [oldest, answer] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= answer.body.length;
    }
  }
}

/** The factory's list version: 0 before its first write to a table the list reads (the row is made then). */
export async function listVersion(db: Db, dialect: Dialect, appId: string): Promise<number> {
  // PostgreSQL spreads a factory's version over several rows (migration 0054): its sum.
  const factory = dialect === 'postgres' ? '$1' : '?';
  const text = `select sum(version) as version from list_versions where app_id = ${factory}`;
  const rows = await readRows<{ version: number | string | null }>(db, text, [appId]);
  return Number(rows[0]?.version ?? 0);
}
