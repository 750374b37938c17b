/// <reference lib="dom" />
// The organization page (/o/{org}) in a real browser: members and roles (change and remove, each confirmed,
// the API's refusal next to its control), the audit log with each of its filters, paging and the chain check,
// the plan, what a member below admin sees (and that the API refuses them anyway), and that another org's URL
// shows nothing of it. Every expected row is computed from what this file did, on a clock it moves itself.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page, Request } from 'playwright-core';
import { ManualClock } from '../../src/server/clock.js';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import {
  describeInBrowser,
  factoryHome,
  launchBrowser,
  newContext,
  openFactoryHome,
  screenshot,
  SCREENSHOTS,
  signIn,
  startWebGateway,
  type WebGateway,
} from './helpers.js';

type RoleName = 'owner' | 'admin' | 'write' | 'read';
interface Person {
  userId: string;
  email: string;
  name: string;
  loginToken: string;
}

describeInBrowser('dashboard: organization page', () => {
  // Whole seconds, so the times the test filters by are the times the rows carry.
  const T0 = Math.floor(Date.now() / 1000) * 1000;
  const clock = new ManualClock(T0);
  const at = (ms: number) => new Date(T0 + ms).toISOString();
  const MIN = 60_000;
  let gw: WebGateway;
  let browser: Browser;
  let page: Page;
  const org = `acme-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
  let appId = '';
  let mgmt = '';
  let owner: Person, admin: Person, writer: Person, reader: Person, leaver: Person;
  let other: Tenant;
  let otherOwnerEmail = '';
  let free: Tenant;

  const adminCall = async (method: 'POST' | 'PATCH', url: string, body?: unknown) => {
    const r = await gw.call(method, url, { token: gw.adminToken, ...(body === undefined ? {} : { body }) });
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const person = async (local: string, name: string, role: RoleName): Promise<Person> => {
    const email = `${local}@${org}.example.com`;
    const user = await adminCall('POST', '/v1/admin/users', { email, name });
    await adminCall('POST', `/v1/admin/orgs/${org}/members`, { userId: user.id, role });
    const login = await adminCall('POST', `/v1/admin/users/${user.id}/login-tokens`);
    return { userId: user.id, email, name, loginToken: login.token };
  };
  /** The members as the API reads them (the management key), for reading back what the page changed. */
  const apiRoles = async () => {
    const r = await gw.call('GET', `/v1/orgs/${org}/members`, { token: mgmt });
    return Object.fromEntries((r.body.data as { email: string; role: string }[]).map((m) => [m.email, m.role]));
  };
  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000 });
  const memberRow = (p: Person) => page.locator(`[data-testid="member-row"][data-email="${p.email}"]`);
  const auditActions = () => page.getByTestId('audit-row').getByTestId('audit-action').allInnerTexts();
  const auditTargets = () => page.getByTestId('audit-row').getByTestId('audit-target').allInnerTexts();

  beforeAll(async () => {
    gw = await startWebGateway({ clock });
    // Everything below is at T0 unless the clock is moved: 4 audit rows (org.created, member.added of the
    // owner, app.created, management_key.created), then one member.added per second for the others.
    await adminCall('POST', '/v1/admin/orgs', { name: org, plan: 'enterprise' });
    owner = await person('olive', 'Olive Owner', 'owner');
    appId = (await adminCall('POST', `/v1/admin/orgs/${org}/apps`, { name: 'main' })).id;
    mgmt = (
      await adminCall('POST', `/v1/admin/orgs/${org}/management-keys`, {
        name: 'mgmt',
        createdBy: owner.userId,
        permissions: ['members.read', 'members.write', 'audit.read'],
      })
    ).key;
    clock.set(T0 + 1000);
    admin = await person('adam', 'Adam Admin', 'admin');
    clock.set(T0 + 2000);
    writer = await person('wanda', 'Wanda Writer', 'write');
    clock.set(T0 + 3000);
    reader = await person('rita', 'Rita Reader', 'read');
    clock.set(T0 + 4000);
    leaver = await person('leo', 'Leo Leaver', 'write');
    other = await createTenant(gw);
    otherOwnerEmail = (await gw.call('GET', `/v1/orgs/${other.orgName}/members`, { token: other.managementKey })).body
      .data[0].email;
    free = await createTenant(gw, { plan: 'free' });
    clock.set(T0 + 5000);
    browser = await launchBrowser();
    page = await openFactoryHome(await newContext(browser, gw), gw, { loginToken: owner.loginToken, appId });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('the shell links the factory to its org; the page lists members with their roles, and the plan', async () => {
    await page.getByTestId('nav-org').click();
    await page.waitForURL(`**/o/${org}`);
    await page.getByTestId('members-table').waitFor();
    expect(await page.getByTestId('org-name').innerText()).toBe(org);
    expect(await page.getByTestId('org-plan').innerText()).toBe('enterprise');
    expect(await page.getByTestId('org-role').innerText()).toBe('owner');
    // Joined order (one second apart), each with its role in the select an owner can change.
    const rows = page.getByTestId('member-row');
    expect(await rows.count()).toBe(5);
    const seen: [string, string, string][] = [];
    for (let i = 0; i < 5; i++) {
      const cells = rows.nth(i).locator('td');
      seen.push([
        await cells.nth(0).innerText(),
        await cells.nth(1).innerText(),
        await rows.nth(i).locator('select').inputValue(),
      ]);
    }
    expect(seen).toEqual([
      ['Olive Owner (you)', owner.email, 'owner'],
      ['Adam Admin', admin.email, 'admin'],
      ['Wanda Writer', writer.email, 'write'],
      ['Rita Reader', reader.email, 'read'],
      ['Leo Leaver', leaver.email, 'write'],
    ]);
    expect(await page.getByTestId('members-read-only').count()).toBe(0);
    await until(() => page.getByTestId('chain-status').innerText()).toBe('Chain verified: 8 entries, intact');
    await screenshot(page, 'org');
  });

  it('changing a role asks first; confirmed, it is saved (read back through the API)', async () => {
    clock.set(T0 + 10 * MIN);
    await memberRow(reader).locator('select').selectOption('write');
    await memberRow(reader).getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change role' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(`Change the role of Rita Reader (${reader.email}) from read to write?`);
    await dialog.getByRole('button', { name: 'Make write' }).click();
    await until(async () => (await apiRoles())[reader.email]).toBe('write');
    await until(() => memberRow(reader).getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await memberRow(reader).locator('select').inputValue()).toBe('write');
  });

  it('cancelling the confirmation changes nothing: no request, the select reverts, the API says write', async () => {
    const writes: Request[] = [];
    const watch = (r: Request) => {
      if (r.method() !== 'GET' && r.url().includes('/members/')) writes.push(r);
    };
    page.on('request', watch);
    await memberRow(writer).locator('select').selectOption('admin');
    await memberRow(writer).getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change role' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await memberRow(writer).locator('select').inputValue()).toBe('write');
    // Escape is a cancel too.
    await memberRow(writer).locator('select').selectOption('owner');
    await memberRow(writer).getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await memberRow(writer).locator('select').inputValue()).toBe('write');
    page.off('request', watch);
    expect(writes).toEqual([]);
    expect((await apiRoles())[writer.email]).toBe('write');
  });

  it('removing a member (confirmed) removes them, and their access to the org stops', async () => {
    // Before: Leo's login token reads the org's factory.
    expect((await gw.call('GET', `/v1/apps/${appId}`, { token: leaver.loginToken, appId })).status).toBe(200);
    clock.set(T0 + 20 * MIN);
    await memberRow(leaver).getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove member' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(`Remove Leo Leaver (${leaver.email}) from ${org}?`);
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await until(() => memberRow(leaver).count()).toBe(0);
    expect(await page.getByTestId('member-row').count()).toBe(4);
    expect((await apiRoles())[leaver.email]).toBeUndefined();
    expect((await gw.call('GET', `/v1/apps/${appId}`, { token: leaver.loginToken, appId })).status).toBe(401);
    expect((await gw.call('GET', '/v1/me/factories', { token: leaver.loginToken })).body.data).toEqual([]);
  });

  it("the API's refusal shows by its control: the last owner can be neither demoted nor removed", async () => {
    await memberRow(owner).locator('select').selectOption('admin');
    await memberRow(owner).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog', { name: 'Change role' }).getByRole('button', { name: 'Make admin' }).click();
    const roleError = memberRow(owner).getByTestId('role-error');
    await roleError.waitFor();
    expect(await roleError.innerText()).toBe('The organization must keep at least one owner.');
    expect(await page.getByTestId('role-error').count()).toBe(1);
    await memberRow(owner).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog', { name: 'Remove member' }).getByRole('button', { name: 'Remove' }).click();
    const removeError = memberRow(owner).getByTestId('remove-error');
    await removeError.waitFor();
    expect(await removeError.innerText()).toBe('The organization must keep at least one owner.');
    expect(await memberRow(owner).getByTestId('role-error').count()).toBe(0);
    expect((await apiRoles())[owner.email]).toBe('owner');
  });

  it('each audit filter narrows the rows to exactly what this file did; paging walks the rest', async () => {
    // The chain so far, oldest first (seq): 1 org.created, 2 member.added olive, 3 app.created,
    // 4 management_key.created (T0); 5–8 member.added adam, wanda, rita, leo (T0+1..4 s);
    // 9 member.role_changed rita (T0+10 min); 10 member.removed leo (T0+20 min). The refused demotion and
    // removal wrote nothing.
    await page.goto(`/o/${org}`);
    await page.getByTestId('audit-table').waitFor();
    expect(await page.getByTestId('audit-total').innerText()).toBe('10 entries');
    expect(await auditActions()).toEqual([
      'member.removed',
      'member.role_changed',
      'member.added',
      'member.added',
      'member.added',
      'member.added',
      'management_key.created',
      'app.created',
      'member.added',
      'org.created',
    ]);
    expect(await page.getByTestId('chain-status').innerText()).toBe('Chain verified: 10 entries, intact');
    const filters = page.getByTestId('audit-filters');
    const apply = async (values: Partial<Record<'actionType' | 'targetType' | 'startDate' | 'endDate', string>>) => {
      for (const name of ['actionType', 'targetType', 'startDate', 'endDate'] as const)
        await filters.locator(`input[name="${name}"]`).fill(values[name] ?? '');
      await filters.getByRole('button', { name: 'Apply' }).click();
    };

    await apply({ actionType: 'member.added' });
    await page.waitForURL(/actionType=member.added/);
    await until(auditTargets).toEqual([leaver.email, reader.email, writer.email, admin.email, owner.email]);
    expect(await page.getByTestId('audit-total').innerText()).toBe('5 entries');

    await apply({ targetType: 'app' });
    await until(auditActions).toEqual(['app.created']);
    expect(await auditTargets()).toEqual(['main']);

    await apply({ targetType: 'member' });
    await until(auditActions).toEqual([
      'member.removed',
      'member.role_changed',
      'member.added',
      'member.added',
      'member.added',
      'member.added',
      'member.added',
    ]);

    // A window around the role change only (inclusive bounds, to the millisecond).
    await apply({ startDate: at(10 * MIN - 1000), endDate: at(10 * MIN) });
    await until(auditActions).toEqual(['member.role_changed']);
    expect(await page.locator('[data-testid="audit-row"] td.details').innerText()).toBe('{"from":"read","to":"write"}');
    // From alone: the removal; to alone: the eight rows of the first four seconds.
    await apply({ startDate: at(10 * MIN + 1) });
    await until(auditActions).toEqual(['member.removed']);
    await apply({ endDate: at(4000) });
    await until(() => page.getByTestId('audit-total').innerText()).toBe('8 entries');
    // Two filters at once: members added within T0+2 s..T0+3 s.
    await apply({ actionType: 'member.added', startDate: at(2000), endDate: at(3000) });
    await until(auditTargets).toEqual([reader.email, writer.email]);
    // A filter that matches nothing says so.
    await apply({ actionType: 'api_key.revoked' });
    await until(() => page.getByTestId('audit-empty').innerText()).toBe('No entry matches these filters.');

    // Paging: 10 entries, 4 a page → 4, 4, 2.
    await page.goto(`/o/${org}`);
    await page.goto(`/o/${org}?pageSize=4`);
    await until(auditActions).toEqual(['member.removed', 'member.role_changed', 'member.added', 'member.added']);
    expect(await page.getByTestId('audit-pager').locator('span').innerText()).toBe('Page 1 of 3 (1–4 of 10)');
    await page.getByTestId('audit-pager').getByRole('button', { name: 'Next' }).click();
    await until(auditActions).toEqual(['member.added', 'member.added', 'management_key.created', 'app.created']);
    await page.getByTestId('audit-pager').getByRole('button', { name: 'Next' }).click();
    await until(auditActions).toEqual(['member.added', 'org.created']);
    expect(await page.getByTestId('audit-pager').locator('span').innerText()).toBe('Page 3 of 3 (9–10 of 10)');
    expect(await page.getByTestId('audit-pager').getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(page.url()).toContain('page=3');
    // The page size select rewrites the URL under the API's name and starts over at page 1.
    await filters.locator('select[name="pageSize"]').selectOption('10');
    await page.waitForURL((u) => u.searchParams.get('pageSize') === '10' && !u.searchParams.has('page'));
    await until(() => page.getByTestId('audit-row').count()).toBe(10);
    expect(await page.getByTestId('audit-pager').count()).toBe(0);
  });

  it("a filter the API refuses shows the API's message next to that field", async () => {
    await page.goto(`/o/${org}?startDate=2026-02-30`);
    const startError = page.getByTestId('error-startDate');
    await startError.waitFor();
    expect(await startError.innerText()).toBe('startDate is not a real date');
    await page.goto(`/o/${org}?startDate=${at(20 * MIN)}&endDate=${at(10 * MIN)}`);
    const endError = page.getByTestId('error-endDate');
    await endError.waitFor();
    expect(await endError.innerText()).toBe('startDate is after endDate.');
    expect(await page.getByTestId('audit-table').count()).toBe(0);
  });

  it('a broken chain shows where it breaks; repaired, it verifies again', async () => {
    const db = gw.app.attest.db;
    const row = await db
      .selectFrom('audit_log')
      .select(['id', 'seq', 'target_identifier'])
      .where('org_id', '=', (await gw.call('GET', `/v1/orgs/${org}`, { token: mgmt })).body.data.id)
      .where('seq', '=', 6)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('audit_log')
      .set({ target_identifier: 'someone-else@example.com' })
      .where('id', '=', row.id)
      .execute();
    try {
      await page.goto(`/o/${org}`);
      const status = page.getByTestId('chain-status');
      await until(() => status.innerText()).toContain('Chain broken at entry #6');
      expect(await status.innerText()).toContain(row.id);
      expect(await status.innerText()).toContain('5 entries before it verified');
      await page.getByTestId('audit').scrollIntoViewIfNeeded();
    } finally {
      await db
        .updateTable('audit_log')
        .set({ target_identifier: row.target_identifier })
        .where('id', '=', row.id)
        .execute();
    }
    await page.reload();
    await until(() => page.getByTestId('chain-status').innerText()).toBe('Chain verified: 10 entries, intact');
    // The audit screenshot: the log filtered to the members' changes.
    await page.goto(`/o/${org}?targetType=member`);
    await page.getByTestId('audit-table').waitFor();
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.getByTestId('audit').screenshot({ path: path.join(SCREENSHOTS, 'org-audit.png') });
  });

  it('a member below admin reads the page with no write control, and the API refuses a forced request', async () => {
    clock.set(T0 + 30 * MIN);
    const ctx = await newContext(browser, gw);
    const p = await signIn(ctx, gw, writer.loginToken);
    await p.waitForURL(factoryHome(appId));
    await p.goto(`/o/${org}`);
    await p.getByTestId('members-table').waitFor();
    expect(await p.getByTestId('org-role').innerText()).toBe('write');
    expect(await p.getByTestId('org-plan').innerText()).toBe('enterprise');
    expect(await p.getByTestId('members-read-only').innerText()).toBe(
      'You need owner or admin to change roles or remove members.',
    );
    expect(await p.getByTestId('member-role').allInnerTexts()).toEqual(['owner', 'admin', 'write', 'write']);
    expect(await p.getByTestId('audit-forbidden').innerText()).toBe('You need owner or admin to read the audit log.');
    expect(await p.locator('main select, main button').count()).toBe(0);
    expect(await p.getByTestId('audit-table').count()).toBe(0);
    // Forced from the page: the cookie and the dashboard header, exactly what the app would send.
    const forced = await p.evaluate(
      async ({ orgName, ownerId }) => {
        const headers = { 'X-Attest-Dashboard': '1', 'content-type': 'application/json' };
        const patch = await fetch(`/v1/orgs/${orgName}/members/${ownerId}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({ role: 'read' }),
          credentials: 'same-origin',
        });
        const del = await fetch(`/v1/orgs/${orgName}/members/${ownerId}`, {
          method: 'DELETE',
          headers: { 'X-Attest-Dashboard': '1' },
          credentials: 'same-origin',
        });
        const audit = await fetch(`/v1/orgs/${orgName}/audit-log`, {
          headers: { 'X-Attest-Dashboard': '1' },
          credentials: 'same-origin',
        });
        return [
          [patch.status, (await patch.json()).error.code],
          [del.status, (await del.json()).error.code],
          [audit.status, (await audit.json()).error.code],
        ];
      },
      { orgName: org, ownerId: owner.userId },
    );
    expect(forced).toEqual([
      [403, 'forbidden'],
      [403, 'forbidden'],
      [403, 'forbidden'],
    ]);
    expect((await apiRoles())[owner.email]).toBe('owner');
    await ctx.close();
    // Each refusal is in the owner's audit log, with the member who tried.
    await page.goto(`/o/${org}?actionType=permission.denied`);
    await until(auditTargets).toEqual([
      'GET /v1/orgs/:orgName/audit-log',
      'DELETE /v1/orgs/:orgName/members/:userId',
      'PATCH /v1/orgs/:orgName/members/:userId',
    ]);
    expect(await page.getByTestId('audit-row').first().locator('td').nth(2).innerText()).toContain(writer.email);
  });

  it("another org's URL shows nothing of that org, and neither does one that does not exist", async () => {
    for (const name of [other.orgName, 'no-such-org']) {
      await page.goto(`/o/${name}`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('There is no organization here that you are a member of.');
      const text = await page.locator('main').innerText();
      expect(text).not.toContain(otherOwnerEmail);
      expect(text).not.toContain('enterprise');
      expect(await page.getByTestId('members-table').count()).toBe(0);
    }
  });

  it("an org without the audit log's plan says so in place of the log", async () => {
    const ctx = await newContext(browser, gw);
    const p = await signIn(ctx, gw, free.loginToken);
    await p.waitForURL(factoryHome(free.appId));
    await p.goto(`/o/${free.orgName}`);
    await p.getByTestId('members-table').waitFor();
    expect(await p.getByTestId('org-plan').innerText()).toBe('free');
    const notice = p.getByTestId('audit-error');
    await notice.waitFor();
    expect(await notice.innerText()).toContain(
      'The audit log needs the enterprise plan; this organization is on free.',
    );
    expect(await p.getByTestId('audit-filters').count()).toBe(0);
    await ctx.close();
  });
  it("adding a member by email: a user joins with the chosen role; the API's refusals show by the email", async () => {
    const nina = { email: `nina@${org}.example.com`, name: 'Nina New' };
    await adminCall('POST', '/v1/admin/users', nina);
    await page.goto(`/o/${org}`);
    const form = page.getByTestId('add-member');
    const email = form.locator('input[name="email"]');
    const addError = form.getByTestId('add-error');
    // Nobody by that email: the operator creates users.
    await email.fill(`nobody@${org}.example.com`);
    await form.getByRole('button', { name: 'Add' }).click();
    await addError.waitFor();
    expect(await addError.innerText()).toBe(
      `No user with email "nobody@${org}.example.com"; the operator creates users (POST /v1/admin/users).`,
    );
    await email.fill(admin.email);
    await form.getByRole('button', { name: 'Add' }).click();
    await until(() => addError.innerText()).toBe(`${admin.email} is already a member of ${org}.`);
    expect(await page.getByTestId('member-row').count()).toBe(4);
    await email.fill(nina.email);
    await form.locator('select[name="role"]').selectOption('write');
    await form.getByRole('button', { name: 'Add' }).click();
    await until(() => form.getByTestId('add-done').innerText()).toBe(`${nina.email} added as write.`);
    expect(await addError.count()).toBe(0);
    const row = page.locator(`[data-testid="member-row"][data-email="${nina.email}"]`);
    await row.waitFor();
    expect(await row.locator('td').first().innerText()).toBe('Nina New');
    expect(await row.locator('select').inputValue()).toBe('write');
    expect(await page.getByTestId('member-row').count()).toBe(5);
    expect((await apiRoles())[nina.email]).toBe('write');
  });

  it('revoking an invitation asks first: cancel keeps the link open, confirm revokes it (read back)', async () => {
    const open = async () =>
      (await gw.call('GET', `/v1/orgs/${org}/invitations`, { token: mgmt })).body.data as { email: string | null }[];
    await page.goto(`/o/${org}`);
    const form = page.getByTestId('invite-form');
    await form.locator('input[name="email"]').fill(`ivy@${org}.example.com`);
    await form.getByRole('button', { name: 'Create link' }).click();
    await page.getByTestId('invite-url').waitFor();
    const row = page.getByTestId('invitation-row');
    await until(() => row.count()).toBe(1);
    expect((await open()).map((i) => i.email)).toEqual([`ivy@${org}.example.com`]);
    const dialog = page.getByRole('dialog', { name: 'Revoke this invitation?' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    expect(await dialog.innerText()).toContain(`The link for ivy@${org}.example.com (write) stops working at once`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await row.count()).toBe(1);
    expect((await open()).length).toBe(1);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await until(() => row.count()).toBe(0);
    expect(await open()).toEqual([]);
  });
});
