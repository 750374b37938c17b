// Opens the store: embedded SQLite (libsql, a file in the data dir) by default, PostgreSQL when
// DATABASE_URL is set. Both run the same migration list at start-up.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'libsql';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { ensurePrivateDir, ensurePrivateFile, narrowIfPresent } from '../server/data-dir.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

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
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl, opts.databaseSchema ?? null);
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
  // 32 MiB of page cache instead of SQLite's 2 MB: a title search over 100k sessions spent 7-10 ms
  // re-reading pages with the default and about 2 ms with a larger cache.
  sqlite.pragma('cache_size = -32768');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', location: file, close: () => db.destroy() };
}

type SqliteHandle = InstanceType<typeof SqliteDatabase>;
type SqliteStatement = ReturnType<SqliteHandle['prepare']>;

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing costs about as much as running a small indexed read
 * (measured 25-40 µs of 290 µs per authenticated request in bench/run.ts). Kysely compiles the same SQL
 * text for the same query shape, so statements are kept by their text. Kysely uses one connection for
 * SQLite and runs one statement at a time on it, so a statement is never used by two queries at once.
 */
function withStatementCache(sqlite: SqliteHandle): { prepare(sql: string): SqliteStatement; close(): void } {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = sqlite.prepare(sql);
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

function openPostgres(url: string, schema: string | null): DbHandle {
  const parsed = new URL(url);
  parsed.password = parsed.password ? '***' : '';
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 || oid === PG_NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format),
    },
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', location: parsed.toString() + (schema ? ` (schema ${schema})` : ''), close: () => db.destroy() };
}
