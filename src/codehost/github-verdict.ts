// The GitHub routes the verdict uses (issue 39): the pull request's commits and changed files, the
// repository's policy files at a commit (contents read), and the `Attest evidence` check run (checks write).
// Kept apart from github.ts; each call goes through InstallationClient.request, so a revoked token is renewed
// once and retryable failures become 503 github_unavailable like every other GitHub call.
import { isNotAccessible, isNotFound } from './github-answers.js';
import type { InstallationClient } from './github.js';

export type Unreadable = 'not_found' | 'not_accessible';

/** GitHub lists at most this many commits of a pull request (its documented cap). */
const PULL_COMMITS_CAP = 250;
/** GitHub lists at most this many changed files of a pull request. */
const PULL_FILES_CAP = 3_000;

async function orUnreadable<T>(fn: () => Promise<T>): Promise<T | Unreadable> {
  try {
    return await fn();
  } catch (err) {
    if (isNotFound(err)) return 'not_found';
    if (isNotAccessible(err)) return 'not_accessible';
    throw err;
  }
}

/** The SHAs of the pull request's commits, oldest first (GET .../pulls/{n}/commits, every page). */
export function pullRequestCommits(
  client: InstallationClient,
  owner: string,
  repo: string,
  number: number,
): Promise<string[] | Unreadable> {
  return orUnreadable(async () => {
    const commits = await client.request((o) =>
      o.paginate(o.rest.pulls.listCommits, { owner, repo, pull_number: number, per_page: 100 }),
    );
    return commits.slice(0, PULL_COMMITS_CAP).map((c) => c.sha);
  });
}

/** The paths the pull request changes, renamed files under both names (GET .../pulls/{n}/files, every page). */
export function pullRequestFiles(
  client: InstallationClient,
  owner: string,
  repo: string,
  number: number,
): Promise<string[] | Unreadable> {
  return orUnreadable(async () => {
    const files = await client.request((o) =>
      o.paginate(o.rest.pulls.listFiles, { owner, repo, pull_number: number, per_page: 100 }),
    );
    const out = new Set<string>();
    for (const f of files.slice(0, PULL_FILES_CAP)) {
      out.add(f.filename);
      if (f.previous_filename) out.add(f.previous_filename);
    }
    return [...out];
  });
}

export type ContentsEntry =
  | { kind: 'file'; path: string; text: string }
  | { kind: 'dir'; entries: Array<{ path: string; type: string }> };

/**
 * A file's text or a directory's entries at a commit (GET .../contents/{path}?ref=). null when there is
 * nothing at that path; 'not_accessible' without the contents permission.
 */
export async function contentsAt(
  client: InstallationClient,
  owner: string,
  repo: string,
  path: string,
  ref: string,
): Promise<ContentsEntry | null | 'not_accessible'> {
  const answer = await orUnreadable(() => client.request((o) => o.rest.repos.getContent({ owner, repo, path, ref })));
  if (answer === 'not_found') return null;
  if (answer === 'not_accessible') return answer;
  const data = answer.data;
  if (Array.isArray(data)) return { kind: 'dir', entries: data.map((e) => ({ path: e.path, type: e.type })) };
  if (data.type !== 'file' || !('content' in data)) return null;
  const encoding = 'encoding' in data ? data.encoding : 'base64';
  const text = encoding === 'base64' ? Buffer.from(data.content, 'base64').toString('utf8') : data.content;
  return { kind: 'file', path: data.path, text };
}

export interface CheckRunInput {
  name: string;
  headSha: string;
  /** null: in progress (the evaluation is waiting for sessions). */
  conclusion: 'success' | 'neutral' | 'failure' | null;
  title: string;
  summary: string;
  detailsUrl: string;
  externalId: string;
}

export interface CheckRunRef {
  id: number;
  url: string;
}

/** Create a completed check run on a commit (POST .../check-runs). */
export async function createCheckRun(
  client: InstallationClient,
  owner: string,
  repo: string,
  input: CheckRunInput,
): Promise<CheckRunRef | Unreadable> {
  return orUnreadable(async () => {
    const { data } = await client.request((o) =>
      o.rest.checks.create({
        owner,
        repo,
        head_sha: input.headSha,
        ...checkRunFields(input),
      }),
    );
    return checkRunRef(data);
  });
}

/** What creating and updating a check run both send. */
function checkRunFields(input: Omit<CheckRunInput, 'headSha'>) {
  return {
    name: input.name,
    ...(input.conclusion === null
      ? { status: 'in_progress' as const }
      : { status: 'completed' as const, conclusion: input.conclusion }),
    details_url: input.detailsUrl,
    external_id: input.externalId,
    output: { title: input.title, summary: input.summary },
  };
}

function checkRunRef(data: { id: number; html_url?: string | null }): CheckRunRef {
  return { id: data.id, url: data.html_url ?? '' };
}

/** Replace a check run's conclusion and output (PATCH .../check-runs/{id}); 'not_found' when it is gone. */
export async function updateCheckRun(
  client: InstallationClient,
  owner: string,
  repo: string,
  id: number,
  input: Omit<CheckRunInput, 'headSha'>,
): Promise<CheckRunRef | Unreadable> {
  return orUnreadable(async () => {
    const { data } = await client.request((o) =>
      o.rest.checks.update({
        owner,
        repo,
        check_run_id: id,
        ...checkRunFields(input),
      }),
    );
    return checkRunRef(data);
  });
}
