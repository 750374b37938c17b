// Migration 0043 on audit rows written before it: names, emails and labels move to audit_identities, each chain is
// hashed again and verifies under the new row shape, and a chain that was broken before stays broken at that row.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DbHandle } from '../../src/db/connection.js';
import { up as core } from '../../src/db/migrations/0001_core.js';
import { up as pseudonyms } from '../../src/db/migrations/0043_audit_pseudonyms.js';
import { canonicalJson, GENESIS_HASH, hashRow } from '../../src/server/audit.js';
import type { Kysely } from 'kysely';

const oldHash = (prev: string, row: Record<string, unknown>) =>
  crypto.createHash('sha256').update(prev).update(canonicalJson(row)).digest('hex');

describe('migration 0043 (pseudonymous audit rows)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-0043-'));
  let handle: DbHandle;
  afterAll(async () => {
    await handle?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('moves names out of the hashed rows, re-chains, and keeps a broken chain broken', async () => {
    handle = await openDatabase({ dataDir: dir, databaseUrl: null });
    const raw = handle.db as unknown as Kysely<unknown>;
    await core(raw, 'sqlite');
    // Org 1: a member added by a user, an invitation by email, a key created by a key. Org 2: its second row edited.
    const rows = (org: string) =>
      [
        [
          'member.added',
          'user',
          'u1',
          'Ann Lee',
          'ann@x.org',
          'ann@x.org',
          'member',
          'u2',
          'bob@x.org',
          { role: 'write' },
        ],
        [
          'invitation.created',
          'user',
          'u1',
          'Ann Lee',
          'ann@x.org',
          'ann@x.org',
          'invitation',
          'i1',
          'cy@x.org',
          {
            email: 'cy@x.org',
            role: 'read',
          },
        ],
        ['api_key.created', 'api_key', 'k1', '', '', 'deploy', 'api_key', 'k2', 'Bob laptop', { permissions: [] }],
      ].map((r, i) => ({
        id: `${org}-${i}`,
        org_id: org,
        seq: i + 1,
        action_type: r[0] as string,
        actor_id: r[2] as string,
        actor_type: r[1] as string,
        actor_name: r[3] as string,
        actor_email: r[4] as string,
        actor_label: r[5] as string,
        target_id: r[7] as string,
        target_type: r[6] as string,
        target_identifier: r[8] as string,
        details: canonicalJson(r[9]),
        created_at: 1_700_000_000_000 + i,
      }));
    for (const org of ['o1', 'o2']) {
      let prev = GENESIS_HASH;
      for (const row of rows(org)) {
        const row_hash = oldHash(prev, row);
        await handle.db
          .insertInto('audit_log')
          .values({ ...row, prev_hash: prev, row_hash } as never)
          .execute();
        prev = row_hash;
      }
    }
    await handle.db.updateTable('audit_log').set({ target_identifier: 'edited' }).where('id', '=', 'o2-1').execute();

    await pseudonyms(raw);

    const verify = async (org: string) => {
      const chain = await handle.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', org)
        .orderBy('seq')
        .execute();
      let prev = GENESIS_HASH;
      for (const r of chain) {
        const { prev_hash, row_hash, ...fields } = r;
        if (
          prev_hash !== prev ||
          row_hash !== hashRow(prev_hash, { ...fields, seq: Number(r.seq), created_at: Number(r.created_at) })
        )
          return r.id;
        prev = row_hash;
      }
      return null;
    };
    expect(await verify('o1')).toBeNull();
    expect(await verify('o2')).toBe('o2-1');

    const o1 = await handle.db.selectFrom('audit_log').selectAll().where('org_id', '=', 'o1').orderBy('seq').execute();
    expect(JSON.stringify(o1)).not.toMatch(/ann@x\.org|Ann Lee|bob@x\.org|cy@x\.org|Bob laptop/);
    expect(o1.map((r) => r.target_identifier)).toEqual(['', '', '']);
    expect(JSON.parse(o1[1]!.details)).toEqual({ role: 'read' });
    const ids = await handle.db.selectFrom('audit_identities').selectAll().where('org_id', '=', 'o1').execute();
    const bySubject = Object.fromEntries(ids.map((i) => [i.subject, i]));
    expect(bySubject['user:u1']).toMatchObject({ name: 'Ann Lee', email: 'ann@x.org', label: 'ann@x.org' });
    expect(bySubject['user:u2']).toMatchObject({ email: 'bob@x.org', label: 'bob@x.org' });
    expect(bySubject['email:cy@x.org']).toMatchObject({ email: 'cy@x.org' });
    expect(bySubject['credential:k1']).toMatchObject({ label: 'deploy' });
    expect(bySubject['credential:k2']).toMatchObject({ label: 'Bob laptop' });
    expect(o1[0]!.actor_ref).toBe(bySubject['user:u1']!.id);
    expect(o1[0]!.target_ref).toBe(bySubject['user:u2']!.id);
  });
});
