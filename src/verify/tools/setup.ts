// Installs, migrations, and git and GitHub steps. Part of the tool table: ./index.ts assembles it.
import { always, type ToolEntry } from './entry.js';

export const INSTALLS: ToolEntry[] = [
  {
    id: 'npm-install',
    programs: ['npm', 'pnpm', 'bun', 'yarn'],
    sub: [],
    kind: 'install',
    when: (a) => ['install', 'i', 'ci', 'add', 'in', 'isntall', 'update', 'up'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'pip-install',
    programs: ['pip', 'pip3', 'pipenv', 'conda', 'mamba'],
    sub: ['install'],
    kind: 'install',
    scope: always,
  },
  {
    id: 'uv-install',
    programs: ['uv'],
    kind: 'install',
    when: (a) => ['sync', 'add', 'pip', 'lock'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'poetry-install',
    programs: ['poetry', 'pdm', 'rye', 'hatch'],
    kind: 'install',
    when: (a) => ['install', 'add', 'sync', 'lock'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'cargo-fetch',
    programs: ['cargo'],
    kind: 'install',
    when: (a) => ['add', 'fetch', 'install'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'go-get',
    programs: ['go'],
    kind: 'install',
    when: (a) =>
      a.operands[0] === 'get' ||
      (a.operands[0] === 'mod' && (a.operands[1] === 'download' || a.operands[1] === 'tidy')),
    scope: always,
  },
  {
    id: 'bundle-install',
    programs: ['bundle', 'gem', 'composer', 'brew', 'apt-get', 'apt'],
    kind: 'install',
    when: (a) => ['install', 'add', 'require', 'update'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  { id: 'dotnet-restore', programs: ['dotnet'], sub: ['restore'], kind: 'install', scope: always },
];

export const MIGRATIONS: ToolEntry[] = [
  {
    id: 'prisma',
    programs: ['prisma'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migrate' || (a.operands[0] === 'db' && a.operands[1] === 'push'),
    scope: always,
  },
  {
    id: 'alembic',
    programs: ['alembic'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'upgrade' || a.operands[0] === 'downgrade',
    scope: always,
  },
  {
    id: 'rails-migrate',
    programs: ['rails', 'rake'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => o.startsWith('db:migrate') || o === 'db:rollback'),
    scope: always,
  },
  { id: 'django-migrate', programs: ['manage.py'], sub: ['migrate'], kind: 'migrate', scope: always },
  {
    id: 'knex',
    programs: ['knex', 'sequelize', 'typeorm', 'mikro-orm'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => /^(db:)?migrat/.test(o)),
    scope: always,
  },
  {
    id: 'drizzle-kit',
    programs: ['drizzle-kit'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migrate' || a.operands[0] === 'push',
    scope: always,
  },
  {
    id: 'migrate-cli',
    programs: ['goose', 'dbmate', 'flyway', 'migrate'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => ['up', 'migrate', 'down', 'rollback'].includes(o)),
    scope: always,
  },
  {
    id: 'diesel',
    programs: ['diesel', 'sqlx'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migration' || a.operands[0] === 'migrate',
    scope: always,
  },
];

export const GIT_STEPS: ToolEntry[] = [
  { id: 'git-commit', programs: ['git'], sub: ['commit'], kind: 'commit', scope: always },
  { id: 'git-push', programs: ['git'], sub: ['push'], kind: 'push', scope: always },
  { id: 'gh-pr-create', programs: ['gh'], sub: ['pr', 'create'], kind: 'pr_create', scope: always },
];
