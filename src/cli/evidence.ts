// `attest artifact add` (POST /v1/artifacts) and `attest result emit` (POST /v1/emitted-results).
// An artifact's client id is derived from its bytes and anchors, so adding the same file twice is one artifact.
// A result's client id also covers its emit time (the gateway compares emits exactly); --emit-id and
// --emitted-at let a CI job make its own repeats idempotent.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { AttestClient } from '../client/index.js';
import { action, printJson, printTable } from './output.js';
import { CliError, clientFor, resolveProfile } from './profile.js';

const ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;

const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.zip': 'application/zip',
};

export function mediaTypeOf(file: string): string {
  return MEDIA_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function parseRepo(value: string): string {
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(value))
    throw new CliError(`--repo must be owner/repo (got "${value}")`);
  return value;
}

function parsePr(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--pr must be a pull request number (got "${value}")`);
  return n;
}

function stableId(prefix: string, ...parts: (string | number | undefined)[]): string {
  return `${prefix}-${crypto
    .createHash('sha256')
    .update(parts.map((p) => String(p ?? '')).join('\u0000'))
    .digest('hex')
    .slice(0, 32)}`;
}

interface ArtifactFlags {
  repo?: string;
  pr?: string;
  criterion?: string;
  workItem?: string;
  caption?: string;
  supersedes?: string;
  json?: boolean;
}

interface ListFlags {
  repo?: string;
  pr?: string;
  workItem?: string;
  json?: boolean;
}

type ListAnchor =
  | { kind: 'pr'; repository: string; prNumber: number; label: string }
  | { kind: 'work-item'; workItem: string; label: string };

function listAnchor(flags: ListFlags): ListAnchor {
  if ((flags.repo === undefined) !== (flags.pr === undefined)) throw new CliError('--repo and --pr go together');
  if (flags.pr !== undefined && flags.workItem !== undefined)
    throw new CliError('Give either --repo owner/repo --pr N or --work-item ID, not both');
  if (flags.pr !== undefined) {
    const repository = parseRepo(flags.repo!);
    const prNumber = parsePr(flags.pr);
    return { kind: 'pr', repository, prNumber, label: `${repository}#${prNumber}` };
  }
  if (flags.workItem !== undefined && flags.workItem !== '')
    return { kind: 'work-item', workItem: flags.workItem, label: `work item ${flags.workItem}` };
  throw new CliError('Say whose to list: --repo owner/repo --pr N, or --work-item ID');
}

/** The checks of each pull request, in the order given (each PR's newest first, as the gateway answers). */
async function checksOf(client: AttestClient, prs: { repository: string; number: number }[]) {
  const all = [];
  for (const pr of prs) all.push(...(await client.listEmittedResults(pr.repository, pr.number)));
  return all;
}

interface EmitFlags {
  link: string;
  repo: string;
  pr: string;
  headSha?: string;
  emitId?: string;
  emittedAt?: string;
  json?: boolean;
}

export function registerEvidence(program: Command): void {
  const artifact = program.command('artifact').description('Evidence artifacts (screenshots, videos, reports, logs)');
  artifact
    .command('add <file>')
    .description('Upload a file as evidence for a pull request and/or work item')
    .option('--repo <owner/repo>', 'repository of the pull request')
    .option('--pr <number>', 'pull request number')
    .option('--criterion <id>', 'the acceptance criterion this proves')
    .option('--work-item <id>', 'work item id or number')
    .option('--caption <text>', 'what the artifact shows', '')
    .option('--supersedes <id>', 'id or clientArtifactId of the artifact this replaces')
    .option('--json', 'print the stored artifact as JSON')
    .action(
      action(async (file: string, flags: ArtifactFlags) => {
        if ((flags.repo === undefined) !== (flags.pr === undefined)) throw new CliError('--repo and --pr go together');
        if (!flags.pr && !flags.workItem)
          throw new CliError('Say what the artifact is evidence for: --repo owner/repo --pr N and/or --work-item ID');
        const repository = flags.repo ? parseRepo(flags.repo) : undefined;
        const prNumber = flags.pr ? parsePr(flags.pr) : undefined;
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(file);
        } catch (err) {
          throw new CliError(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
        }
        if (bytes.length > ARTIFACT_MAX_BYTES)
          throw new CliError(
            `${file} is ${bytes.length} bytes; the gateway takes at most ${ARTIFACT_MAX_BYTES} bytes an artifact.`,
          );
        const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
        const filename = path.basename(file);
        const client = clientFor(resolveProfile());
        const stored = await client.createArtifact({
          schemaVersion: 1,
          artifact: {
            clientArtifactId: stableId(
              'cli-artifact',
              sha256,
              filename,
              repository,
              prNumber,
              flags.criterion,
              flags.workItem,
            ),
            filename,
            mediaType: mediaTypeOf(file),
            bytes: bytes.length,
            sha256,
            caption: flags.caption ?? '',
            emittedAt: new Date().toISOString(),
            ...(flags.criterion ? { criterionId: flags.criterion } : {}),
            ...(repository ? { repository } : {}),
            ...(prNumber ? { prNumber } : {}),
            ...(flags.workItem ? { workItemId: flags.workItem } : {}),
            ...(flags.supersedes ? { supersedes: flags.supersedes } : {}),
          },
          blob: { data: bytes.toString('base64') },
        });
        if (flags.json) printJson(stored);
        else process.stdout.write(`Artifact ${stored.id} (${stored.kind}, ${stored.bytes} bytes): ${stored.url}\n`);
      }),
    );

  artifact
    .command('list')
    .description('List the live artifacts of a pull request (--repo --pr) or of a work item (--work-item)')
    .option('--repo <owner/repo>', 'repository of the pull request')
    .option('--pr <number>', 'pull request number')
    .option('--work-item <id>', 'work item id or number')
    .option('--json', 'print the artifacts as JSON')
    .action(
      action(async (flags: ListFlags) => {
        const anchor = listAnchor(flags);
        const client = clientFor(resolveProfile());
        let artifacts: Record<string, unknown>[];
        let truncated = false;
        if (anchor.kind === 'pr') artifacts = await client.listPullRequestArtifacts(anchor.repository, anchor.prNumber);
        else ({ artifacts, truncated } = await client.listWorkItemArtifacts(anchor.workItem));
        if (flags.json) {
          printJson(anchor.kind === 'pr' ? artifacts : { artifacts, truncated });
          return;
        }
        printTable(
          artifacts.map((a) => ({ ...a, pr: a.repository ? `${String(a.repository)}#${String(a.prNumber)}` : '-' })),
          [
            { key: 'id', header: 'ID' },
            { key: 'kind', header: 'KIND' },
            { key: 'filename', header: 'FILE' },
            { key: 'bytes', header: 'BYTES' },
            { key: 'criterionId', header: 'CRITERION' },
            { key: 'pr', header: 'PR' },
            { key: 'emittedAt', header: 'EMITTED' },
            { key: 'caption', header: 'CAPTION' },
          ],
        );
        process.stdout.write(
          `${artifacts.length} artifact(s) of ${anchor.label}${truncated ? ' (the oldest 200; more exist)' : ''}\n`,
        );
      }),
    );

  const result = program.command('result').description('Pass/fail results of your own CI checks');
  result
    .command('list')
    .description(
      "List the checks of a pull request (--repo --pr) or of a work item's pull requests (--work-item): the latest " +
        'result of each, with how many earlier',
    )
    .option('--repo <owner/repo>', 'repository of the pull request')
    .option('--pr <number>', 'pull request number')
    .option('--work-item <id>', 'work item id or number')
    .option('--json', 'print the checks as JSON')
    .action(
      action(async (flags: ListFlags) => {
        const anchor = listAnchor(flags);
        const client = clientFor(resolveProfile());
        const prs =
          anchor.kind === 'pr'
            ? [{ repository: anchor.repository, number: anchor.prNumber }]
            : await client.workItemPullRequests(anchor.workItem);
        const noneYet = prs.length === 0 ? ' (none declared onto it yet)' : '';
        const checks = await checksOf(client, prs);
        if (flags.json) {
          printJson(checks);
          return;
        }
        printTable(
          checks.map((c) => ({ ...c, pr: `${c.repository}#${c.prNumber}`, earlier: c.history.length })),
          [
            { key: 'pr', header: 'PR' },
            { key: 'name', header: 'CHECK' },
            { key: 'result', header: 'RESULT' },
            { key: 'emittedAt', header: 'EMITTED' },
            { key: 'earlier', header: 'EARLIER' },
            { key: 'link', header: 'LINK' },
          ],
        );
        process.stdout.write(
          `${checks.length} check(s) of ${anchor.label}` +
            `${anchor.kind === 'work-item' ? ` across ${prs.length} pull request(s)${noneYet}` : ''}` +
            `\n`,
        );
      }),
    );

  result
    .command('emit <name> <result>')
    .description('Record a check result (pass|fail) for a pull request, with the run URL as proof')
    .requiredOption('--link <url>', 'the CI run URL (http or https)')
    .requiredOption('--repo <owner/repo>', 'repository of the pull request')
    .requiredOption('--pr <number>', 'pull request number')
    .option('--head-sha <sha>', 'the commit the check ran on')
    .option('--emit-id <id>', 'your idempotency key (same id and --emitted-at again = the same record)')
    .option('--emitted-at <date>', 'when the check finished (default: now)')
    .option('--json', 'print the stored result as JSON')
    .action(
      action(async (name: string, outcome: string, flags: EmitFlags) => {
        if (outcome !== 'pass' && outcome !== 'fail')
          throw new CliError(`The result must be pass or fail (got "${outcome}")`);
        if (!/^https?:\/\//i.test(flags.link)) throw new CliError('--link must be an http or https URL');
        const repository = parseRepo(flags.repo);
        const prNumber = parsePr(flags.pr);
        let emittedAt = new Date().toISOString();
        if (flags.emittedAt !== undefined) {
          const ms = Date.parse(flags.emittedAt);
          if (!Number.isFinite(ms)) throw new CliError(`--emitted-at "${flags.emittedAt}" is not a date`);
          emittedAt = new Date(ms).toISOString();
        }
        const client = clientFor(resolveProfile());
        const stored = await client.emitResult({
          schemaVersion: 1,
          emit: {
            // The gateway treats a clientEmitId as one exact emit (emittedAt included), so the default id covers
            // the emit time: two runs are two results. --emit-id with --emitted-at makes repeats idempotent.
            clientEmitId:
              flags.emitId ??
              stableId('cli-emit', name, outcome, flags.link, repository, prNumber, flags.headSha, emittedAt),
            name,
            result: outcome,
            link: flags.link,
            emittedAt,
            prNumber,
            repository,
            ...(flags.headSha ? { headSha: flags.headSha } : {}),
          },
        });
        if (flags.json) printJson(stored);
        else
          process.stdout.write(
            `Result ${name} = ${outcome} recorded for ${repository}#${prNumber}` +
              `${typeof stored.id === 'string' ? ` (${stored.id})` : ''}.\n`,
          );
      }),
    );
}
