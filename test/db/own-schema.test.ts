// On PostgreSQL the gateway's migrator looks only at its own schema. Kysely's default introspector read
// every schema of the database, and a schema dropped by someone else meanwhile failed the gateway's start-up
// with "schema … does not exist" (seen in CI with test files running side by side).
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, usingPostgres, type TestGateway } from '../helpers/gateway.js';

describe.skipIf(!usingPostgres)('PostgreSQL: the gateway reads only its own schema', () => {
  const other = `other_${crypto.randomBytes(6).toString('hex')}`;
  let gw: TestGateway;

  const admin = async (text: string): Promise<void> => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    // Another tenant of the database: a schema with a serial column, which the old introspector looked up by name.
    await admin(`create schema ${other}; create table ${other}.kysely_migration (id serial primary key, name text)`);
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await admin(`drop schema if exists ${other} cascade`);
  });

  it('lists its own tables, none of another schema, and still starts when another schema disappears', async () => {
    const tables = await gw.app.attest.db.introspection.getTables();
    const names = tables.map((t) => `${t.schema}.${t.name}`);
    const own = gw.config.databaseSchema!;
    expect(names).toContain(`${own}.sessions`);
    expect(names).toContain(`${own}.kysely_migration`);
    expect(names.filter((n) => !n.startsWith(`${own}.`))).toEqual([]);

    await admin(`drop schema ${other} cascade`);
    const replica = await startGateway({ replicaOf: gw });
    try {
      expect((await replica.call('GET', '/health')).status).toBe(200);
    } finally {
      await replica.close();
    }
  });
});
