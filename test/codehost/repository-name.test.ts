// The three repository-name normalisers (src/codehost/repository-name.ts): what each makes of the spellings
// Attest meets, and where they part. Expected names written out by hand.
import { describe, expect, it } from 'vitest';
import { normalizeRepo, normalizeRepository, normalizeRepoUrl } from '../../src/codehost/repository-name.js';

describe('repository names', () => {
  it("the capture's remote name keeps the host and the case and drops credentials", () => {
    expect(normalizeRepoUrl('git@github.com:Owner/Repo.git')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('https://x-access-token:abc@github.com/Owner/Repo.git')).toBe('github.com/Owner/Repo');
    expect(normalizeRepoUrl('https://gitlab.com/group/sub/repo/')).toBe('gitlab.com/group/sub/repo');
    expect(normalizeRepoUrl('not a url')).toBe('not a url');
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

  it("a pull request's repository agrees on owner/repo and GitHub URLs, and parts on other hosts and scp-like remotes", () => {
    for (const same of ['Owner/Repo', 'https://github.com/Owner/Repo.git', 'GitHub.com/Owner/Repo']) {
      expect(normalizeRepository(same)).toBe('owner/repo');
      expect(normalizeRepo(same)).toBe('owner/repo');
    }
    expect(normalizeRepository('https://ghe.example.com/o/r')).toBe('o/r');
    expect(normalizeRepo('https://ghe.example.com/o/r')).toBe('ghe.example.com/o/r');
    expect(normalizeRepository('git@github.com:o/r.git')).toBe('git@github.com:o/r');
    expect(normalizeRepository('o/r/')).toBe('o/r/');
  });
});
