// Runs the ordered migration list (src/db/migrations/NNNN_name.ts) on either dialect. Each migration
// exports `up(db, dialect)`; dialect-specific SQL sits side by side inside the same migration.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Dialect } from './connection.js';

export interface MigrationModule {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

class FolderProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(MIGRATIONS_DIR))
      .filter((f) => /^\d{4}[a-z]?_[\w-]+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
    const out: Record<string, Migration> = {};
    for (const file of files) {
      const mod = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as MigrationModule;
      const name = file.replace(/\.(ts|js)$/, '');
      out[name] = { up: (db) => mod.up(db as Kysely<unknown>, this.dialect) };
    }
    return out;
  }
}

/**
 * `schema` (PostgreSQL) names where the migration bookkeeping tables live. Naming it matters: Kysely
 * looks for its tables across every schema of the database and would otherwise find another schema's.
 */
export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: Dialect,
  schema: string | null = null,
): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: new FolderProvider(dialect),
    // Areas add migrations with letter suffixes between existing numbers (0003d after 0008 ran); each
    // touches only its own tables, so applying a late-numbered one after later ones is safe.
    allowUnorderedMigrations: true,
    ...(dialect === 'postgres' ? { migrationTableSchema: schema ?? 'public' } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}
