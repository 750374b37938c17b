// Issue 46: a factory's session list answer is kept in memory and served again while nothing it reads has
// changed (src/areas/sessions/list-answers.ts). What says "changed" is `list_versions`: a factory's version,
// raised by a trigger on every insert, update and delete of a table the list reads, in the writing transaction,
// whichever code path wrote. Its rows are never deleted, so a version never comes back.
//
// SQLite raises it at each row written: its one writer makes the row free. PostgreSQL raises it once a
// transaction, at its commit (a deferred constraint trigger; `writer` is the transaction that raised it last),
// after every other lock the transaction takes, on one of 16 rows of the factory chosen by the transaction's id:
// one row would make every writer of the factory wait for the one committing (its WAL flush), which cost OTLP
// exports from four clients about a quarter of their p99. The version read is the sum of the factory's rows.
// PostgreSQL builds no index on, and alters no, table with trigger events pending: a transaction (a later
// migration, a bulk load) that writes these tables and then changes them runs `set constraints all immediate`
// between (bench/seed.ts does).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

const LIST_SOURCE_TABLES = [
  'sessions',
  'session_repos',
  'session_facets',
  'session_pr_refs',
  'session_commit_prs',
  'pull_requests',
  'pr_checks',
  'pr_revert_refs',
  'context_commits',
] as const;

/**
 * Every table the session list's answer is read from (list-store.ts, prs and context stores); on SQLite also
 * its title search's index (migration 0003d; PostgreSQL searches the sessions' titles themselves).
 */
export const listSourceTables = (dialect: Dialect): readonly string[] =>
  dialect === 'sqlite' ? [...LIST_SOURCE_TABLES, 'session_title_search'] : LIST_SOURCE_TABLES;

/** PostgreSQL: rows a factory's version is spread over. */
const LIST_VERSION_SHARDS = 16;

const bump = (appId: string) =>
  `insert into list_versions (app_id, version) values (${appId}, 1) ` +
  'on conflict (app_id) do update set version = version + 1;';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') return postgresUp(db);
  await sql`create table list_versions (app_id text primary key, version integer not null) without rowid`.execute(db);
  for (const table of listSourceTables('sqlite')) {
    await sql
      .raw(`create trigger ${table}_list_version_ai after insert on ${table} begin ${bump('new.app_id')} end`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_list_version_ad after delete on ${table} begin ${bump('old.app_id')} end`)
      .execute(db);
    // An update raises the row's factory, and the one it left if app_id itself changed (no code path does).
    await sql
      .raw(
        `create trigger ${table}_list_version_au after update on ${table} begin ${bump('new.app_id')} ` +
          `insert into list_versions (app_id, version) select old.app_id, 1 where old.app_id <> new.app_id ` +
          'on conflict (app_id) do update set version = version + 1; end',
      )
      .execute(db);
  }
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  // A factory's version is the sum of its shards' (each writing transaction adds 1 to the shard of its id), so
  // concurrent writers of one factory mostly lock different rows through their commits.
  await sql`create table list_versions (
      app_id text not null, shard smallint not null, version bigint not null, writer xid8 not null,
      primary key (app_id, shard)
    )`.execute(db);
  // Once a transaction and factory: a later row of the same transaction finds its own `writer` and changes nothing.
  await sql`create function list_version_raise(factory text) returns void language sql
    set search_path from current as $$
      insert into list_versions as v (app_id, shard, version, writer)
      values (factory, (pg_current_xact_id()::text::bigint % ${sql.lit(LIST_VERSION_SHARDS)})::smallint, 1,
        pg_current_xact_id())
      on conflict (app_id, shard) do update set version = v.version + 1, writer = excluded.writer
      where v.writer <> excluded.writer
    $$`.execute(db);
  await sql`create function list_version_written() returns trigger language plpgsql set search_path from current as $$
    begin
      if tg_op = 'INSERT' then
        perform list_version_raise(new.app_id);
      else
        perform list_version_raise(old.app_id);
        if tg_op = 'UPDATE' then
          if new.app_id <> old.app_id then perform list_version_raise(new.app_id); end if;
        end if;
      end if;
      return null;
    end
    $$`.execute(db);
  for (const table of listSourceTables('postgres')) {
    await sql
      .raw(
        `create constraint trigger ${table}_list_version after insert or update or delete on ${table} ` +
          'deferrable initially deferred for each row execute function list_version_written()',
      )
      .execute(db);
  }
}
