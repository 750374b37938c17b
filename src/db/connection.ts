// Opens the store: embedded SQLite (libsql, a file in the data dir) by default, PostgreSQL when
// DATABASE_URL is set. Both run the same migration list at start-up.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'libsql';
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type PostgresDialectConfig,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';
import type { Database } from './schema.js';
import { afterEachCommit } from './group-commit.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { ensurePrivateDir, ensurePrivateFile, narrowIfPresent } from '../data-dir.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

/**
 * Whether `db` (a store's handle or a transaction of it) runs on PostgreSQL: for the statements whose best
 * form differs between the stores, where no context with the gateway's dialect is at hand.
 */
export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  /** Where the data lives, for logs: a file path or the URL without its password. */
  location: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  dataDir: string;
  databaseUrl: string | null;
  databaseSchema?: string | null;
}

const PG_INT8 = 20;
const PG_NUMERIC = 1700;

export async function openDatabase(opts: OpenOptions): Promise<DbHandle> {
  if (opts.databaseUrl)
    return openPostgres((await import('pg')).default, opts.databaseUrl, opts.databaseSchema ?? null);
  ensurePrivateDir(opts.dataDir);
  const file = path.join(opts.dataDir, 'attest.db');
  // SQLite creates the -wal and -shm files with the database file's mode, so a 0600 database gives 0600
  // companions; files left by an earlier version with wider modes are narrowed here.
  ensurePrivateFile(file);
  for (const companion of [`${file}-wal`, `${file}-shm`]) narrowIfPresent(companion);
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a committed transaction survives a power cut too, so a 2xx really means durable.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // 8 MiB of page cache instead of SQLite's 2 MB: at 100k sessions the list, the title search and the
  // overview's tiles read as fast as with 32 MiB (bench/sessions.ts --only list, bench/pr-spend.ts), while a
  // full 32 MiB cache is about 45 MB of the gateway's RSS after a 100k-session ingest (bench/memory.ts; the
  // goal is 250 MB). Pages it does not hold come from the OS's file cache.
  sqlite.pragma('cache_size = -8192');
  const statements = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  directReaders.set(db, (text, parameters) => {
    // Inside a transaction (another request's, between its statements) the read waits for Kysely's queue, as it
    // must: on the one connection it would see that transaction's uncommitted rows.
    if (sqlite.inTransaction) return null;
    const statement = statements.prepare(text);
    return statement.reader ? statement.all(parameters) : null;
  });
  // Checkpoints run on a thread of their own once the WAL has grown (db/wal-checkpointer.ts), asked after each
  // group commit (the ingest path, nearly all of the WAL's pages).
  const checkpointer = new WalCheckpointer(file, async (pages) => {
    await sql`pragma wal_autocheckpoint = ${sql.raw(String(pages))}`.execute(db);
  });
  const walBytes = async () => (await fs.promises.stat(`${file}-wal`).catch(() => null))?.size ?? 0;
  afterEachCommit(db, () => void checkpointer.afterCommit(walBytes).catch(() => undefined));
  return {
    db,
    dialect: 'sqlite',
    location: file,
    close: async () => {
      await checkpointer.close();
      await db.destroy();
    },
  };
}

/**
 * SQLite: runs a read at once when no transaction is open, without Kysely's connection queue (a chain of
 * promises through its driver's mutex on every query); null when it must wait its turn. Used by
 * src/db/prepared.ts, where it takes a few percent off a small authenticated read's server CPU
 * (npm run bench -- core --only api-keys). libsql is synchronous and SQLite has one connection
 * here, so outside a transaction the queue only ever delays a read; inside one it must wait, or it would
 * read that transaction's uncommitted rows.
 */
type DirectReader = (text: string, parameters: readonly unknown[]) => unknown[] | null;
const directReaders = new WeakMap<Db, DirectReader>();

/** The direct reader of a store's root handle (never of a transaction), or undefined on PostgreSQL. */
export function directReaderOf(db: Db): DirectReader | undefined {
  return directReaders.get(db);
}

type SqliteHandle = InstanceType<typeof SqliteDatabase>;
type SqliteStatement = ReturnType<SqliteHandle['prepare']>;

/** What Kysely's SQLite driver calls on a statement. */
interface DriverStatement {
  readonly reader: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * The row objects of a statement, made from libsql's arrays of values by an object literal that names the
 * columns once: every row gets the same hidden class with fast properties. Assigning the columns one by one by
 * computed key turned a row of more than about a dozen columns into a dictionary-mode object in V8, slower to
 * build and to read: 25 rows of 50 columns, built and four columns read of each, cost about a third more than
 * with the literal, which adds next to nothing to libsql's arrays. Duplicate names: the last one wins, as in
 * libsql's own objects. A column named `__proto__` (which a literal would take for the prototype) keeps the
 * assignment, as libsql's objects do.
 */
function rowMaker(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  if (names.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i += 1) row[names[i]!] = values[i];
      return row;
    };
  }
  // The names are JSON-quoted string keys: no column name can be anything but a key.
  return new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`) as (
    values: unknown[],
  ) => Record<string, unknown>;
}

/**
 * A prepared statement as Kysely's driver uses it, made cheaper per call: whether it returns rows is asked of
 * libsql once (a native call on every query otherwise), and rows are read as arrays and turned into objects
 * here with the column names read once (see rowMaker). libsql builds each row object property by property
 * through N-API, about a third slower for 25 rows of 50 columns than arrays and a loop (and slower for
 * small rows too).
 */
function driverStatement(statement: SqliteStatement): DriverStatement {
  const reader = statement.reader;
  if (!reader) {
    return {
      reader,
      all: (parameters) => statement.all(parameters) as unknown[],
      run: (parameters) => statement.run(parameters) as { changes: number; lastInsertRowid: number },
      iterate: (parameters) => statement.iterate(parameters) as IterableIterator<unknown>,
    };
  }
  const names = (statement.columns() as { name: string }[]).map((c) => c.name);
  const rows = (statement as unknown as { raw(on?: boolean): SqliteStatement }).raw(true);
  const toObject = rowMaker(names);
  return {
    reader,
    all(parameters) {
      const raw = rows.all(parameters) as unknown[][];
      const out = new Array<unknown>(raw.length);
      for (let r = 0; r < raw.length; r += 1) out[r] = toObject(raw[r]!);
      return out;
    },
    run: (parameters) => rows.run(parameters) as { changes: number; lastInsertRowid: number },
    *iterate(parameters) {
      for (const values of rows.iterate(parameters) as Iterable<unknown[]>) yield toObject(values);
    },
  };
}

/**
 * Kysely prepares every query anew; preparing costs about as much as running a small indexed read
 * (about a tenth of a small authenticated request, bench/run.ts). Kysely compiles the same SQL
 * text for the same query shape, so statements are kept by their text. Kysely uses one connection for
 * SQLite and runs one statement at a time on it, so a statement is never used by two queries at once.
 */
function withStatementCache(sqlite: SqliteHandle): { prepare(sql: string): DriverStatement; close(): void } {
  const statements = new Map<string, DriverStatement>();
  return {
    prepare(sql: string): DriverStatement {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = driverStatement(sqlite.prepare(sql));
        statements.set(sql, statement);
      }
      return statement;
    },
    close(): void {
      statements.clear();
      sqlite.close();
    },
  };
}

/**
 * The URL for logs, its password (in the authority or a `password=` parameter) replaced by `***`. Not by way of
 * `new URL`: libpq's Unix-socket form `postgres://user@/db?host=/var/run/postgresql` (no host before the path),
 * which `pg` connects with, is not a WHATWG URL, and the gateway refused to start on it ("Invalid URL").
 */
export function withoutPassword(url: string): string {
  // The userinfo ends at the last `@`, whatever the password holds (an unencoded `/`, `?`, `#` or `@` is
  // malformed but must not leak either); an `@` in a parameter only hides more than it needs to.
  const scheme = /^postgres(?:ql)?:\/\//.exec(url)?.[0] ?? '';
  const at = url.lastIndexOf('@');
  const userinfo = at > scheme.length ? url.slice(scheme.length, at) : '';
  const colon = userinfo.indexOf(':');
  const hidden = colon < 0 ? url : `${scheme}${userinfo.slice(0, colon)}:***${url.slice(at)}`;
  return hidden.replace(/([?&]password=)[^&#]*/g, '$1***');
}

/**
 * `pg` is passed in, loaded only when DATABASE_URL is set (about 15 MB of resident memory an SQLite node never needs).
 */
function openPostgres(pg: typeof import('pg').default, url: string, schema: string | null, readOnly = false): DbHandle {
  // Read-only sessions on the replica's pool: a write routed there by mistake fails at once, also where a
  // stand-in for the replica (a writable database) would take it silently.
  const options = [
    ...(schema ? [`-c search_path=${schema}`] : []),
    ...(readOnly ? ['-c default_transaction_read_only=on'] : []),
  ];
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    ...(options.length ? { options: options.join(' ') } : {}),
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 || oid === PG_NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
    },
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }, schema ?? 'public') });
  return {
    db,
    dialect: 'postgres',
    location: withoutPassword(url) + (schema ? ` (schema ${schema})` : ''),
    close: () => db.destroy(),
  };
}

/**
 * The read replica of a PostgreSQL store (DATABASE_READ_URL), for the reads src/server/read-routing.ts sends
 * there; its sessions are read-only. Refuses to start, naming DATABASE_READ_URL, when the replica cannot be
 * reached or holds no Attest schema (its migration table), so a wrong URL fails at start-up, not on the
 * dashboard's first read.
 */
export async function openReadReplica(url: string, schema: string | null): Promise<DbHandle> {
  const handle = openPostgres((await import('pg')).default, url, schema, true);
  try {
    const { rows } = await sql<{ found: string | null }>`
      select to_regclass(current_schema() || '.kysely_migration')::text as found`.execute(handle.db);
    if (!rows[0]?.found) {
      throw new Error(
        `DATABASE_READ_URL (${handle.location}) holds no Attest schema: it must be a replica of DATABASE_URL`,
      );
    }
  } catch (err) {
    await handle.close().catch(() => undefined);
    const message = err instanceof Error ? err.message : String(err);
    if (message.startsWith('DATABASE_READ_URL')) throw err;
    throw new Error(`DATABASE_READ_URL (${handle.location}): cannot read the replica: ${message}`);
  }
  return handle;
}

/**
 * Kysely's PostgreSQL introspector reads every schema of the database and calls `pg_get_serial_sequence` on
 * each table by name, so a schema another process drops meanwhile fails the query ("schema … does not
 * exist") and with it the migration at start-up: seen in CI with test files running side by side, each on
 * its own schema, and possible wherever the database is shared. The migrator only asks which tables exist,
 * so this introspector answers for the gateway's own schema alone.
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    return [{ name: this.schema }];
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ${this.schema} and c.relkind in ('r', 'v', 'p')`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: this.schema, isView: row.kind === 'v', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

class OwnSchemaPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db, this.schema);
  }
}
