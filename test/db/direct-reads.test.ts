// Prepared reads (src/db/prepared.ts) skip Kysely's connection queue on SQLite when no transaction is open
// (src/db/connection.ts, directReaderOf). A read must still never see another transaction's uncommitted rows.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connection.js';
import { preparedQuery } from '../../src/db/prepared.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let db: Db;
beforeAll(async () => {
  gw = await startGateway();
  db = gw.app.attest.db;
});
afterAll(async () => {
  await gw.close();
});

const orgById = preparedQuery(1, (d: Db, id: string) =>
  d.selectFrom('orgs').select(['id', 'name']).where('id', '=', id),
);

describe('prepared reads beside a transaction', () => {
  it("a read does not see another transaction's uncommitted row; after the commit it does", async () => {
    const id = crypto.randomUUID();
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    let finish!: () => void;
    const mayFinish = new Promise<void>((resolve) => (finish = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx
        .insertInto('orgs')
        .values({ id, name: 'uncommitted-org', plan: 'free', created_at: 1, updated_at: 1 })
        .execute();
      inserted();
      await mayFinish;
    });
    await insertedYet;

    let committed = false;
    let seenBeforeCommit: number | null = null;
    // On SQLite this read waits for the transaction (one connection); on PostgreSQL it answers at once.
    const during = orgById(db, id).then((rows) => {
      if (!committed) seenBeforeCommit = rows.length;
      return rows;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    committed = true;
    finish();
    await transaction;
    await during;

    expect(seenBeforeCommit === null || seenBeforeCommit === 0).toBe(true);
    expect(await orgById(db, id)).toEqual([{ id, name: 'uncommitted-org' }]);
  });

  it('outside a transaction a read answers the committed rows, and an empty answer is empty', async () => {
    const id = crypto.randomUUID();
    expect(await orgById(db, id)).toEqual([]);
    await db
      .insertInto('orgs')
      .values({ id, name: 'committed-org', plan: 'free', created_at: 1, updated_at: 1 })
      .execute();
    expect(await orgById(db, id)).toEqual([{ id, name: 'committed-org' }]);
  });
});
