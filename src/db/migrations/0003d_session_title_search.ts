// Title search (`GET /v1/sessions?q=`) reads a trigram index instead of testing every session of the window
// with LIKE (at 100k sessions the scan cost 26-76 ms). The list keeps its LIKE predicate as the final test, so
// results stay exactly what they were; the index only narrows the candidates.
//
// - SQLite: an FTS5 table with the `trigram` tokenizer (case folded, so its matches are a superset of the
//   case-insensitive LIKE), external content `session_title_search` (one row per titled session, with its
//   own INTEGER PRIMARY KEY: the FTS rowid must survive VACUUM, which may renumber `sessions`' implicit
//   rowids). Triggers on `sessions` keep both in the writing transaction, whatever the write path (ingest,
//   bulk load, re-sync with a new title, delete).
// - PostgreSQL: pg_trgm and a GIN index on the very expression the list filters on,
//   lower(coalesce(title, '')). The extension is trusted (PostgreSQL 13+); if it cannot be created the
//   migration warns once and the list keeps its sequential LIKE (same results, slower).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';
import { ensureExtension } from '../extensions.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await postgresUp(db);
    return;
  }
  await db.schema
    .createTable('session_title_search')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('session_title_search_session')
    .unique()
    .on('session_title_search')
    .columns(['app_id', 'session_id'])
    .execute();
  await sql`create virtual table session_title_fts
    using fts5(title, content='session_title_search', content_rowid='seq', tokenize='trigram')`.execute(db);
  // External-content FTS: the index follows its content table (delete needs the old text).
  await sql`create trigger session_title_search_ai after insert on session_title_search begin
    insert into session_title_fts (rowid, title) values (new.seq, new.title);
  end`.execute(db);
  await sql`create trigger session_title_search_ad after delete on session_title_search begin
    insert into session_title_fts (session_title_fts, rowid, title) values ('delete', old.seq, old.title);
  end`.execute(db);
  await sql`create trigger session_title_search_au after update on session_title_search begin
    insert into session_title_fts (session_title_fts, rowid, title) values ('delete', old.seq, old.title);
    insert into session_title_fts (rowid, title) values (new.seq, new.title);
  end`.execute(db);
  // Backfill, then follow every write of a session's title.
  await sql`insert into session_title_search (app_id, session_id, title)
    select app_id, id, title from sessions where title is not null and title <> ''`.execute(db);
  await sql`create trigger sessions_title_search_ai after insert on sessions
    when new.title is not null and new.title <> '' begin
    insert into session_title_search (app_id, session_id, title) values (new.app_id, new.id, new.title);
  end`.execute(db);
  await sql`create trigger sessions_title_search_au after update of title, id, app_id on sessions
    when old.title is not new.title or old.id <> new.id or old.app_id <> new.app_id begin
    delete from session_title_search where app_id = old.app_id and session_id = old.id;
    insert into session_title_search (app_id, session_id, title)
      select new.app_id, new.id, new.title where new.title is not null and new.title <> '';
  end`.execute(db);
  await sql`create trigger sessions_title_search_ad after delete on sessions begin
    delete from session_title_search where app_id = old.app_id and session_id = old.id;
  end`.execute(db);
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  const schema = await ensureExtension(db, 'pg_trgm');
  if (!schema) {
    console.warn(
      'attest migration 0003d: the pg_trgm extension could not be created; GET /v1/sessions?q= keeps scanning titles ' +
        'with LIKE ' +
        '(same results, slower). To index it later: create extension pg_trgm; create index sessions_title_trgm on ' +
        'sessions ' +
        "using gin (lower(coalesce(title, '')) gin_trgm_ops) with (fastupdate = off);",
    );
    return;
  }
  await sql`create index sessions_title_trgm on sessions
    using gin (lower(coalesce(title, '')) ${sql.id(schema, 'gin_trgm_ops')})`.execute(db);
}
