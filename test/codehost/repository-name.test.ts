// The repository-name views (src/codehost/repository-name.ts): what each makes of the spellings Attest meets,
// and where they part. Expected names written out by hand.
import { describe, expect, it } from 'vitest';
import {
  normalizeRepo,
  normalizeRepository,
  normalizeRepoUrl,
  repositoryName,
} from '../../src/codehost/repository-name.js';

describe('repository names', () => {
  it("the capture's remote name keeps the host and the case and drops credentials", () => {
    expect(normalizeRepoUrl('git@github.com:Owner/Repo.git')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('https://x-access-token:abc@github.com/Owner/Repo.git')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('https://gitlab.com/group/sub/repo/')).toBe('gitlab.com/group/sub/repo');
    expect(normalizeRepoUrl('not a url')).toBe('not a url');
  });

  it('the capture reads every remote shape: ssh with a port, scp-like GHE, an upper-case host, local paths', () => {
    expect(normalizeRepoUrl('ssh://git@ghe.example.com:2222/Team/Repo.git')).toBe('ghe.example.com/Team/Repo');
    expect(normalizeRepoUrl('git@ghe.example.com:Team/Repo.git')).toBe('ghe.example.com/Team/Repo');
    expect(normalizeRepoUrl('https://GitHub.com/Owner/Repo/')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('https://github.com:443/Owner/Repo.git')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('file:///srv/git/repo.git')).toBe('/srv/git/repo');
    expect(normalizeRepoUrl('/srv/git/Repo')).toBe('/srv/git/Repo');
  });

  it("a session's repository: any remote spelling, GitHub as owner/repo, other hosts as host/path", () => {
    expect(normalizeRepo('git@github.com:Owner/Repo.git')).toBe('owner/repo');
    expect(normalizeRepo('https://x-access-token:abc@github.com/Owner/Repo.git')).toBe('owner/repo');
    expect(normalizeRepo('github.com/Owner/Repo')).toBe('owner/repo');
    expect(normalizeRepo('https://gitlab.com/group/sub/repo/')).toBe('gitlab.com/group/sub/repo');
    expect(normalizeRepo('ssh://git@ghe.example.com:2222/o/r.git')).toBe('ghe.example.com/o/r');
    expect(normalizeRepo('  Owner/Repo  ')).toBe('owner/repo');
    expect(normalizeRepo('')).toBe('');
    expect(normalizeRepo(undefined)).toBe('');
  });

  it("a session's repository from each remote shape on a GHE host and on GitHub", () => {
    expect(normalizeRepo('git@ghe.example.com:Team/Repo.git')).toBe('ghe.example.com/team/repo');
    expect(normalizeRepo('ghe.example.com:Team/Repo')).toBe('ghe.example.com/team/repo');
    expect(normalizeRepo('https://ghe.example.com/Team/Repo/')).toBe('ghe.example.com/team/repo');
    expect(normalizeRepo('ssh://git@github.com/Owner/Repo.git')).toBe('owner/repo');
    expect(normalizeRepo('git+ssh://git@github.com:22/Owner/Repo')).toBe('owner/repo');
  });

  it("a PR's repository agrees on owner/repo and GitHub URLs, and parts on other hosts and scp remotes", () => {
    for (const same of ['Owner/Repo', 'https://github.com/Owner/Repo.git', 'GitHub.com/Owner/Repo']) {
      expect(normalizeRepository(same)).toBe('owner/repo');
      expect(normalizeRepo(same)).toBe('owner/repo');
    }
    expect(normalizeRepository('https://ghe.example.com/o/r')).toBe('o/r');
    expect(normalizeRepo('https://ghe.example.com/o/r')).toBe('ghe.example.com/o/r');
    expect(normalizeRepository('git@github.com:o/r.git')).toBe('git@github.com:o/r');
    expect(normalizeRepository('o/r/')).toBe('o/r/');
    expect(normalizeRepository('  http://GHE.example.com/Team/Repo.git ')).toBe('team/repo');
  });

  it('the views are option sets of one function', () => {
    const remote = 'git@GitHub.com:Owner/Repo.git';
    expect(repositoryName(remote, { remotes: 'git', dropGithubHost: true, lowerCase: false })).toBe('Owner/Repo');
    expect(repositoryName(remote, { remotes: 'git', dropGithubHost: false, lowerCase: true })).toBe(
      'github.com/owner/repo',
    );
    expect(repositoryName(remote, { remotes: 'http', dropGithubHost: true, lowerCase: true })).toBe(
      'git@github.com:owner/repo',
    );
  });
});
