// PostgreSQL extensions the migrations use (pg_trgm, btree_gin). Both are trusted on PostgreSQL 13+, so a
// database owner without superuser may create them; where even that is refused, the migration that asked
// keeps a slower plan with the same results.
import { sql, type Kysely } from 'kysely';

/**
 * The schema `name` is installed in, creating it if needed: in public when allowed (one copy for every
 * schema of the database, as the test harness' per-run schemas need), else in the current schema. A
 * savepoint keeps a refused CREATE from aborting the migration's transaction. Null when it cannot be created.
 */
export async function ensureExtension(db: Kysely<unknown>, name: 'pg_trgm' | 'btree_gin'): Promise<string | null> {
  let schema = await extensionSchema(db, name);
  const ident = sql.id(name);
  for (const create of [
    sql`create extension if not exists ${ident} with schema public`,
    sql`create extension if not exists ${ident}`,
  ]) {
    if (schema) break;
    await sql`savepoint create_extension`.execute(db);
    try {
      await create.execute(db);
      await sql`release savepoint create_extension`.execute(db);
    } catch {
      await sql`rollback to savepoint create_extension`.execute(db);
    }
    // Also when a concurrent migration created it first (our CREATE then fails on the catalog's unique key).
    schema = await extensionSchema(db, name);
  }
  return schema;
}

/** The schema an installed extension lives in, or null when it is not installed. */
export async function extensionSchema(db: Kysely<unknown>, name: string): Promise<string | null> {
  const res = await sql<{
    schema: string;
  }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = ${name}`.execute(db);
  return res.rows[0]?.schema ?? null;
}
