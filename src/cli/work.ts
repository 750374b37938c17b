// `attest work list|claim|renew|release|pr`: the work queue. A claim's item key (oli_, shown once by the
// gateway) is kept in the profile (mode 0600) so renew, release and pr can use it later.
import fs from 'node:fs';
import os from 'node:os';
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { ApiClientError, type AttestClient, type WorkItem } from '../client/index.js';
import { action, printJson, printTable } from './output.js';
import { CliError, clientFor, readProfile, resolveProfile, writeProfile, type ItemKeyEntry } from './profile.js';

function findItemKey(item: string): ItemKeyEntry | undefined {
  const keys = readProfile().itemKeys ?? {};
  return keys[item] ?? Object.values(keys).find((k) => String(k.number) === item || k.workItemId === item);
}

function saveItemKey(entry: ItemKeyEntry): void {
  const profile = readProfile();
  writeProfile({ ...profile, itemKeys: { ...(profile.itemKeys ?? {}), [entry.workItemId]: entry } });
}

function forgetItemKey(workItemId: string): void {
  const profile = readProfile();
  if (!profile.itemKeys?.[workItemId]) return;
  const { [workItemId]: _gone, ...rest } = profile.itemKeys;
  writeProfile({ ...profile, itemKeys: rest });
}

async function listAll(client: AttestClient): Promise<WorkItem[]> {
  const items: WorkItem[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await client.listWorkItems(cursor);
    items.push(...res.items);
    if (!res.cursor) break;
    cursor = res.cursor;
  }
  return items;
}

function claimExpiredMessage(item: string, branch: string | undefined): string {
  return (
    `The claim on ${item} has expired (410 claim_expired): the item is free again. Claim it again with: attest ` +
    `work claim ${item} --branch ${branch ?? '<branch>'}`
  );
}

/** On a terminal, offer to claim again after a 410; elsewhere just say how. */
async function offerReclaim(client: AttestClient, item: string, entry: ItemKeyEntry | undefined): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY || !entry) return false;
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (
      await rl.question(`The claim on ${item} expired. Claim it again for branch ${entry.branch}? [y/N] `)
    )
      .trim()
      .toLowerCase();
    if (answer !== 'y' && answer !== 'yes') return false;
  } finally {
    rl.close();
  }
  await claim(client, item, entry.branch, undefined, undefined);
  return true;
}

async function claim(
  client: AttestClient,
  item: string,
  branch: string,
  ttlSeconds: number | undefined,
  source: string | undefined,
): Promise<ItemKeyEntry> {
  const workItem = await client.getWorkItem(item);
  const res = await client.claimWorkItem(workItem.id, {
    source: source ?? `attest-cli@${os.hostname()}`,
    branch,
    ...(ttlSeconds ? { ttlSeconds } : {}),
  });
  const entry: ItemKeyEntry = {
    itemKey: res.itemKey,
    workItemId: workItem.id,
    number: workItem.number,
    branch,
    claimId: res.claim.id,
    expiresAt: res.claim.expiresAt,
  };
  saveItemKey(entry);
  return entry;
}

export function registerWork(program: Command): void {
  const work = program
    .command('work')
    .description('The work queue: list, claim, renew, release, open the pull request');

  work
    .command('list')
    .description('Live work items, startable first')
    .option('--json', 'print as JSON')
    .action(
      action(async (flags: { json?: boolean }) => {
        const client = clientFor(resolveProfile());
        const items = await listAll(client);
        items.sort((a, b) => Number(b.startable) - Number(a.startable) || a.number - b.number);
        if (flags.json) {
          printJson(items);
          return;
        }
        printTable(
          items.map((i) => ({
            ...i,
            start: i.startable ? 'yes' : 'no',
            claimedTo: i.claim ? `${i.claim.branch ?? '-'} until ${i.claim.expiresAt}` : '',
          })),
          [
            { key: 'number', header: '#' },
            { key: 'start', header: 'STARTABLE' },
            { key: 'stage', header: 'STAGE' },
            { key: 'trackerKey', header: 'TRACKER' },
            { key: 'title', header: 'TITLE' },
            { key: 'claimedTo', header: 'CLAIM' },
          ],
        );
      }),
    );

  work
    .command('claim <item>')
    .description('Claim a work item (id or number) for a branch; keeps the item key in the profile')
    .requiredOption('--branch <branch>', 'the branch the work happens on (the pull request is opened from it)')
    .option('--ttl <seconds>', 'lease length in seconds (gateway default 3600)')
    .option('--source <text>', 'who claims (default attest-cli@<hostname>)')
    .option('--json', 'print as JSON (the item key is never printed)')
    .action(
      action(async (item: string, flags: { branch: string; ttl?: string; source?: string; json?: boolean }) => {
        const ttl = flags.ttl === undefined ? undefined : Number(flags.ttl);
        if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1))
          throw new CliError('--ttl must be a number of seconds');
        const client = clientFor(resolveProfile());
        const entry = await claim(client, item, flags.branch, ttl, flags.source);
        const shown = {
          workItemId: entry.workItemId,
          number: entry.number,
          branch: entry.branch,
          claimId: entry.claimId,
          expiresAt: entry.expiresAt,
        };
        if (flags.json) printJson(shown);
        else
          process.stdout.write(
            `Claimed #${entry.number} for branch ${entry.branch} until ${entry.expiresAt}. The item key is saved in ` +
              `your profile.\n`,
          );
      }),
    );

  work
    .command('renew <item>')
    .description('Extend the claim on a work item')
    .option('--json', 'print as JSON')
    .action(
      action(async (item: string, flags: { json?: boolean }) => {
        const entry = findItemKey(item);
        if (!entry)
          throw new CliError(
            `No item key for ${item} in the profile: claim it first (attest work claim ${item} --branch B).`,
          );
        const client = clientFor(resolveProfile());
        try {
          const { claim: renewed } = await client.renewClaim(entry.workItemId, entry.itemKey);
          saveItemKey({ ...entry, expiresAt: renewed.expiresAt });
          if (flags.json)
            printJson({ workItemId: entry.workItemId, number: entry.number, expiresAt: renewed.expiresAt });
          else process.stdout.write(`Renewed #${entry.number ?? item} until ${renewed.expiresAt}.\n`);
        } catch (err) {
          if (err instanceof ApiClientError && err.status === 410) {
            forgetItemKey(entry.workItemId);
            if (await offerReclaim(client, item, entry)) return;
            throw new CliError(claimExpiredMessage(item, entry.branch), 5);
          }
          throw err;
        }
      }),
    );

  work
    .command('release <item>')
    .description('Give the work item back (revokes the item key)')
    .action(
      action(async (item: string) => {
        const entry = findItemKey(item);
        const client = clientFor(resolveProfile());
        // Without a saved key, a factory credential with work.write may release whatever claim is open.
        const id = entry?.workItemId ?? (await client.getWorkItem(item)).id;
        try {
          await client.releaseClaim(id, entry?.itemKey);
        } catch (err) {
          // An expired or already released claim: nothing is held any more, which is what release wants.
          if (!(err instanceof ApiClientError && (err.status === 410 || err.code === 'claim_not_found'))) throw err;
        }
        forgetItemKey(id);
        process.stdout.write(`Released ${entry?.number !== undefined ? `#${entry.number}` : item}.\n`);
      }),
    );

  work
    .command('pr <item>')
    .description("Open (or edit) the work item's pull request from the claimed branch")
    .requiredOption('--title <title>', 'pull request title (1–256 characters)')
    .requiredOption('--body-file <file>', 'file holding the pull request body (- for stdin)')
    .option('--json', 'print as JSON')
    .action(
      action(async (item: string, flags: { title: string; bodyFile: string; json?: boolean }) => {
        const entry = findItemKey(item);
        if (!entry)
          throw new CliError(
            `No item key for ${item} in the profile: claim it first (attest work claim ${item} --branch B).`,
          );
        if (flags.title.length < 1 || flags.title.length > 256)
          throw new CliError('--title must be 1 to 256 characters');
        let body: string;
        try {
          body = fs.readFileSync(flags.bodyFile === '-' ? 0 : flags.bodyFile, 'utf8');
        } catch (err) {
          throw new CliError(`Cannot read ${flags.bodyFile}: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (body.length > 65536) throw new CliError(`The body is ${body.length} characters; the limit is 65536.`);
        const client = clientFor(resolveProfile());
        try {
          const { pr } = await client.putPullRequest(entry.workItemId, entry.itemKey, { title: flags.title, body });
          if (flags.json) printJson(pr);
          else process.stdout.write(`${pr.created ? 'Opened' : 'Updated'} ${pr.repository}#${pr.number}: ${pr.url}\n`);
        } catch (err) {
          if (err instanceof ApiClientError && err.status === 410) {
            forgetItemKey(entry.workItemId);
            if (await offerReclaim(client, item, entry)) {
              process.stdout.write('Claimed again; run the same attest work pr command once more.\n');
              return;
            }
            throw new CliError(claimExpiredMessage(item, entry.branch), 5);
          }
          throw err;
        }
      }),
    );
}
