// The policy parser (levels, custom validators, one error per broken file with its position) and the shell
// reading behind every fact (wrappers, compounds, quoted text and heredocs, hook bypasses).
import { describe, expect, it } from 'vitest';
import { readCommand } from '../../src/verify/commands.js';
import { parsePolicy } from '../../src/verify/index.js';

describe('parsePolicy', () => {
  it('reads levels and custom validators; defaults fill the rest', () => {
    const p = parsePolicy([
      {
        path: '.attest/policy.yaml',
        text: 'validators:\n  hooks-kept: block\n  red-then-green: off\n  custom:e2e: info\n',
      },
      {
        path: '.attest/validators/e2e.yaml',
        text:
          "description: UI changes ran the e2e suite\nwhen:\n  paths: ['web/**']\nrequire:\n  ran: [npm run " +
          'test:e2e]\n',
      },
    ]);
    expect(p.errors).toEqual([]);
    expect(p.levels['hooks-kept']).toBe('block');
    expect(p.levels['red-then-green']).toBe('off');
    expect(p.levels['tests-after-last-edit']).toBe('warn');
    expect(p.levels['custom:e2e']).toBe('info');
    expect(p.custom).toEqual([
      {
        name: 'e2e',
        file: '.attest/validators/e2e.yaml',
        level: 'warn',
        description: 'UI changes ran the e2e suite',
        paths: ['web/**'],
        ran: ['npm run test:e2e'],
        emitted: [],
        artifact: [],
      },
    ]);
  });

  it('a broken file is one error naming the file, the position and the problem; the others still apply', () => {
    const p = parsePolicy([
      { path: '.attest/policy.yaml', text: 'validators:\n  tests-after-last-edits: block\n' },
      { path: '.attest/validators/a.yaml', text: 'level: loud\nrequire:\n  ran: [npm test]\n' },
      { path: '.attest/validators/b.yaml', text: 'require:\n  emitted: [e2e]\n' },
      { path: '.attest/validators/c.yaml', text: 'require: [npm test\n' },
    ]);
    expect(p.errors).toEqual([
      { file: '.attest/policy.yaml', message: 'line 2, column 3: unknown validator "tests-after-last-edits"' },
      { file: '.attest/validators/a.yaml', message: 'line 1, column 8: level must be one of off, info, warn, block' },
      { file: '.attest/validators/c.yaml', message: expect.stringMatching(/^line 2, column 1: /) },
    ]);
    expect(p.custom.map((c) => c.name)).toEqual(['b']);
    expect(p.levels['tests-after-last-edit']).toBe('warn');
  });
});

describe('readCommand', () => {
  const read = (c: string | string[]) => readCommand(c).map((p) => [p.tool, p.kind, p.scope, p.bypass ?? '']);
  it.each([
    ['cd pkg && npx vitest run', [['vitest', 'test', 'full', '']]],
    ['pnpm exec jest -t total', [['jest', 'test', 'partial', '']]],
    ['yarn test', [['npm-script', 'test', 'full', '']]],
    ['bun test', [['bun-test', 'test', 'full', '']]],
    ['uv run pytest tests/test_cart.py::test_total', [['pytest', 'test', 'partial', '']]],
    ['poetry run python -m unittest discover', [['unittest', 'test', 'full', '']]],
    ['tox', [['tox', 'test', 'full', '']]],
    ['nox -s tests', [['nox', 'test', 'full', '']]],
    ['go test -run TestCart ./...', [['go-test', 'test', 'partial', '']]],
    ['cargo nextest run', [['nextest', 'test', 'full', '']]],
    ['mvn -q test -Dtest=CartTest', [['maven', 'test', 'partial', '']]],
    ['./gradlew check', [['gradle', 'test', 'full', '']]],
    ['dotnet test', [['dotnet-test', 'test', 'full', '']]],
    ['bundle exec rspec', [['rspec', 'test', 'full', '']]],
    ['bin/rails test test/models/cart_test.rb', [['rails-test', 'test', 'partial', '']]],
    ['vendor/bin/phpunit --filter testTotal', [['phpunit', 'test', 'partial', '']]],
    ['deno test', [['deno-test', 'test', 'full', '']]],
    ['make test', [['make', 'test', 'full', '']]],
    ['npx playwright test', [['playwright', 'test', 'full', '']]],
    ['npx cypress run --spec cypress/e2e/cart.cy.ts', [['cypress', 'test', 'partial', '']]],
    ['node --test', [['node-test', 'test', 'full', '']]],
    ['npx mocha', [['mocha', 'test', 'full', '']]],
    ['npx tsc --noEmit -p .', [['tsc', 'typecheck', 'full', '']]],
    ['pyright', [['pyright', 'typecheck', 'full', '']]],
    ['cargo check', [['cargo-check', 'typecheck', 'full', '']]],
    ['go vet ./...', [['go-vet', 'typecheck', 'full', '']]],
    ['npx eslint src', [['eslint', 'lint', 'full', '']]],
    ['npx @biomejs/biome check .', [['biome', 'lint', 'full', '']]],
    ['npx biome ci .', [['biome', 'lint', 'full', '']]],
    ['ruff check .', [['ruff', 'lint', 'full', '']]],
    ['ruff format .', []],
    ['golangci-lint run ./...', [['golangci-lint', 'lint', 'full', '']]],
    ['cargo clippy', [['clippy', 'lint', 'full', '']]],
    ['npm run build', [['npm-script', 'build', 'full', '']]],
    ['npm ci', [['npm-install', 'install', 'full', '']]],
    ['npx prisma migrate dev', [['prisma', 'migrate', 'full', '']]],
    ['python manage.py migrate', [['django-migrate', 'migrate', 'full', '']]],
    ['gh pr create --fill', [['gh-pr-create', 'pr_create', 'full', '']]],
    [['bash', '-lc', 'npm test'], [['npm-script', 'test', 'full', '']]],
    ['git commit -m "why we never use --no-verify"', [['git-commit', 'commit', 'full', '']]],
    ['git commit -m "$(cat <<\'EOF\'\nnever pass --no-verify\nEOF\n)"', [['git-commit', 'commit', 'full', '']]],
    ['echo "npm test && git push --no-verify"', []],
    ['git commit --amend --no-edit -n', [['git-commit', 'commit', 'full', '-n']]],
    ['git -c core.hooksPath=/dev/null commit -m x', [['git-commit', 'commit', 'full', 'core.hooksPath']]],
    ['HUSKY=0 git push', [['git-push', 'push', 'full', 'HUSKY=0']]],
    ['env SKIP=lint git commit -m x', [['git-commit', 'commit', 'full', 'SKIP=lint']]],
    ['HUSKY=0 npm install', [['npm-install', 'install', 'full', '']]],
    ['for f in a b; do npm test -- $f; done', [['npm-script', 'test', 'partial', '']]],
    ['while true; do npx vitest run; done', [['vitest', 'test', 'full', '']]],
    [
      'if true; then npx tsc --noEmit; elif x; then ruff check .; else npm test; fi',
      [
        ['tsc', 'typecheck', 'full', ''],
        ['ruff', 'lint', 'full', ''],
        ['npm-script', 'test', 'full', ''],
      ],
    ],
    ['case "$1" in ci) pytest;; esac', [['pytest', 'test', 'full', '']]],
    ['cat > notes.md <<EOF && npm test\nnpm run lint\nEOF', [['npm-script', 'test', 'full', '']]],
    [
      'git commit -F - <<EOF && git push --no-verify\nskip hooks with --no-verify\nEOF',
      [
        ['git-commit', 'commit', 'full', ''],
        ['git-push', 'push', 'full', '--no-verify'],
      ],
    ],
  ] as [string | string[], string[][]][])('%j', (cmd, want) => {
    expect(read(cmd)).toEqual(want);
  });

  it('the exit status of a line speaks for the commands joined after a heredoc, never for loop bodies', () => {
    const flags = (c: string) => readCommand(c).map((p) => [p.tool, p.passesWithLine, p.failsWithLine]);
    expect(flags('cat > x.txt <<EOF && npm test\nbody\nEOF')).toEqual([['npm-script', true, true]]);
    expect(flags('cat <<EOF || npm test\nbody\nEOF')).toEqual([['npm-script', false, false]]);
    expect(flags('cat <<EOF | npx vitest run\nbody\nEOF')).toEqual([['vitest', true, true]]);
    expect(flags('for f in a; do npm test; done')).toEqual([['npm-script', false, false]]);
  });
});
