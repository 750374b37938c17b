// First boot (API.md §9): default org, admin user, factory and tokens, written once to bootstrap.json.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mintPlaintext } from '../../src/server/credentials.js';
import { startGateway } from '../helpers/gateway.js';

describe('bootstrap', () => {
  it('first boot creates org default (enterprise), admin owner, factory default, working tokens, once', async () => {
    const gw = await startGateway();
    try {
      const boot = gw.boot;
      expect(boot.created).toBe(true);
      expect(boot.orgName).toBe('default');
      expect(boot.userEmail).toBe('admin@localhost');
      const file = path.join(gw.config.dataDir, 'bootstrap.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(saved.adminToken).toBe(boot.adminToken);
      expect(saved.factory.id).toBe(boot.appId);
      // The login token is the owner's: it can mint keys in the default factory.
      const key = await gw.call('POST', '/v1/api-keys', {
        token: boot.loginToken,
        appId: boot.appId,
        body: { name: 'first', preset: 'full-access' },
      });
      expect(key.status).toBe(201);
      // The admin token works on the operator routes; the default org is enterprise.
      const org = await gw.call('PATCH', '/v1/admin/orgs/default', {
        token: boot.adminToken,
        body: { plan: 'enterprise' },
      });
      expect(org.status).toBe(200);
      expect(org.body.data.plan).toBe('enterprise');
      // Nothing of the plaintexts is stored.
      const rows = await gw.app.attest.db.selectFrom('credentials').select(['digest', 'prefix']).execute();
      for (const row of rows) {
        expect(row.digest).not.toBe(boot.adminToken);
        expect(
          boot.adminToken!.startsWith(row.prefix) ||
            boot.loginToken!.startsWith(row.prefix) ||
            row.prefix.startsWith('sk_outerlayer_'),
        ).toBe(true);
      }

      // A second boot on the same store creates nothing and prints no credentials.
      const again = await startGateway({ replicaOf: gw });
      try {
        expect(again.boot.created).toBe(false);
        expect(again.boot.adminToken).toBeUndefined();
        expect(again.boot.appId).toBe(boot.appId);
        const orgs = await again.app.attest.db.selectFrom('orgs').select('name').execute();
        expect(orgs.map((o) => o.name)).toEqual(['default']);
        expect(JSON.parse(fs.readFileSync(file, 'utf8')).adminToken).toBe(boot.adminToken);
      } finally {
        await again.close();
      }
    } finally {
      await gw.close();
    }
  });

  it('ATTEST_ADMIN_TOKEN sets the admin token', async () => {
    const token = mintPlaintext('admin_token');
    const gw = await startGateway({ env: { ATTEST_ADMIN_TOKEN: token } });
    try {
      expect(gw.boot.adminToken).toBe(token);
      const r = await gw.call('POST', '/v1/admin/users', { token, body: { email: 'x@example.com', name: 'X' } });
      expect(r.status).toBe(201);
    } finally {
      await gw.close();
    }
  });

  it('refuses to start with an ATTEST_ADMIN_TOKEN that is not an admin token', async () => {
    await expect(startGateway({ env: { ATTEST_ADMIN_TOKEN: 'hunter2' } })).rejects.toThrow(/ATTEST_ADMIN_TOKEN/);
  });
});
