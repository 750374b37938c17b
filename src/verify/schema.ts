// The verdict's data (API.md §11): the verification facts of a session, the rows a pull request's evaluation
// shows, the parsed repository policy and what an evaluation reads. Every type is derived from these schemas.
import { Type, type Static } from 'typebox';

// The constants live apart from the schemas, so the CLI's capture and `attest verify` do not load TypeBox.
export { BUILTIN_VALIDATORS, FACTS_EVENT, RUN_KINDS, VERDICTS, type BuiltinValidator } from './constants.js';
export const RunKind = Type.Union([
  Type.Literal('test'),
  Type.Literal('typecheck'),
  Type.Literal('lint'),
  Type.Literal('build'),
  Type.Literal('install'),
  Type.Literal('migrate'),
  Type.Literal('commit'),
  Type.Literal('push'),
  Type.Literal('pr_create'),
  Type.Literal('other'),
]);
export type RunKind = Static<typeof RunKind>;

export const RunResult = Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('unknown')]);
export type RunResult = Static<typeof RunResult>;

export const RunScope = Type.Union([Type.Literal('full'), Type.Literal('partial'), Type.Literal('unknown')]);
export type RunScope = Static<typeof RunScope>;

/**
 * One shell command the session ran. `tool` names the entry of the tool table that recognised it (`vitest`,
 * `pytest`, `npm-script`, ...) and `target` the script or task it ran (`test:e2e` of `npm run test:e2e`,
 * `migrate` of `make migrate`): both are words of a fixed vocabulary or of the repository's own scripts, kept
 * at the redacted tier so a custom validator's `require.ran` can be checked there. `command`, the text
 * itself, only at the full tier.
 */
export const CommandRun = Type.Object({
  turnIndex: Type.Integer({ minimum: 0 }),
  kind: RunKind,
  result: RunResult,
  scope: RunScope,
  tool: Type.Optional(Type.String()),
  target: Type.Optional(Type.String()),
  command: Type.Optional(Type.String()),
});
export type CommandRun = Static<typeof CommandRun>;

/** One file an edit tool wrote; `file` only where the tier keeps files (redacted and full). */
export const FileEdit = Type.Object({
  turnIndex: Type.Integer({ minimum: 0 }),
  file: Type.Optional(Type.String()),
  test: Type.Boolean(),
});
export type FileEdit = Static<typeof FileEdit>;

/** A commit or push that skipped the repository's hooks; `how` is the switch (`--no-verify`, `HUSKY=0`, ...). */
export const HookBypass = Type.Object({
  turnIndex: Type.Integer({ minimum: 0 }),
  how: Type.String(),
});
export type HookBypass = Static<typeof HookBypass>;

/** `verification` of GET /v1/sessions/{id}: what the session provably did. */
export const SessionVerification = Type.Object({
  runs: Type.Array(CommandRun),
  edits: Type.Array(FileEdit),
  /** Full SHAs or the abbreviated ones `git commit` printed, in the order the session made them. */
  commits: Type.Array(Type.String()),
  bypasses: Type.Array(HookBypass),
});
export type SessionVerification = Static<typeof SessionVerification>;

// ---------------------------------------------------------------------------------------------------------
// The facts as session-document events (data only, kept at the redacted tier). The CLI writes them at capture
// so the gateway learns the facts without the command text; docs/spec/API.md §11 documents them.

export const FactsEvent = Type.Object({
  type: Type.String(),
  seq: Type.Integer({ minimum: 0 }),
  turnIndex: Type.Optional(Type.Integer({ minimum: 0 })),
  data: Type.Record(Type.String(), Type.Unknown()),
});
export type FactsEvent = Static<typeof FactsEvent>;

/**
 * The parts of an AgentSession v1 document the facts are read from. Both the capture's and the gateway's
 * document types fit it; `input`/`output` are present at the full tier only.
 */
export const FactsDocument = Type.Object({
  captureTier: Type.Union([Type.Literal('metrics'), Type.Literal('redacted'), Type.Literal('full')]),
  /** The session's directory: files under it are named relative to it, as the capture names them. */
  env: Type.Object({ cwd: Type.Optional(Type.String()) }),
  turns: Type.Array(
    Type.Object({
      index: Type.Integer(),
      role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
      toolCalls: Type.Array(
        Type.Object({
          name: Type.String(),
          status: Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('rejected')]),
          isEdit: Type.Boolean(),
          file: Type.Optional(Type.Unknown()),
          input: Type.Optional(Type.Unknown()),
          output: Type.Optional(Type.Unknown()),
        }),
      ),
    }),
  ),
  events: Type.Array(
    Type.Object({
      type: Type.String(),
      seq: Type.Number(),
      turnIndex: Type.Optional(Type.Number()),
      data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});
export type FactsDocument = Static<typeof FactsDocument>;

// ---------------------------------------------------------------------------------------------------------
// The evaluation of a pull request.

export const Verdict = Type.Union([
  Type.Literal('clean'),
  Type.Literal('review'),
  Type.Literal('unverifiable'),
  Type.Literal('waiting'),
  Type.Literal('none'),
]);
export type Verdict = Static<typeof Verdict>;

export const RowStatus = Type.Union([
  Type.Literal('pass'),
  Type.Literal('flag'),
  Type.Literal('fail'),
  Type.Literal('error'),
]);
export type RowStatus = Static<typeof RowStatus>;

/** A row's weight: `info` shows but never counts, `warn` counts toward the verdict, `block` also fails the check. */
export const RowLevel = Type.Union([Type.Literal('block'), Type.Literal('warn'), Type.Literal('info')]);
export type RowLevel = Static<typeof RowLevel>;

/** A policy level: the row levels and `off` (no row at all). */
export const PolicyLevel = Type.Union([RowLevel, Type.Literal('off')]);
export type PolicyLevel = Static<typeof PolicyLevel>;

export const TurnRef = Type.Object({
  traceId: Type.String(),
  sessionId: Type.String(),
  turnIndex: Type.Integer({ minimum: 0 }),
});
export type TurnRef = Static<typeof TurnRef>;

export const VerdictRow = Type.Object({
  /** A built-in id (BUILTIN_VALIDATORS) or `custom:<name>`; `policy` for a policy file that could not be read. */
  validator: Type.String(),
  status: RowStatus,
  level: RowLevel,
  sentence: Type.String(),
  refs: Type.Array(TurnRef),
});
export type VerdictRow = Static<typeof VerdictRow>;

export const PolicyError = Type.Object({ file: Type.String(), message: Type.String() });
export type PolicyError = Static<typeof PolicyError>;

/** A repository's own validator, `.attest/validators/<name>.yaml`: data, never executed. */
export const CustomValidator = Type.Object({
  /** Shown as `custom:<name>`. */
  name: Type.String(),
  file: Type.String(),
  level: PolicyLevel,
  description: Type.Optional(Type.String()),
  /** Globs (picomatch) over the PR's changed files; empty = always applies. */
  paths: Type.Array(Type.String()),
  /** Command matchers, read by the same shell parser as the session's runs; each needs a passing run. */
  ran: Type.Array(Type.String()),
  /** Result names that must have been emitted (POST /v1/results). */
  emitted: Type.Array(Type.String()),
  /** Artifact kinds that must have been uploaded. */
  artifact: Type.Array(Type.String()),
});
export type CustomValidator = Static<typeof CustomValidator>;

/** What parsePolicy makes of `.attest/policy.yaml` and `.attest/validators/*.yaml`. */
export const Policy = Type.Object({
  /** The level of each built-in validator (defaults filled in) and of custom ones the policy file names. */
  levels: Type.Record(Type.String(), PolicyLevel),
  custom: Type.Array(CustomValidator),
  errors: Type.Array(PolicyError),
});
export type Policy = Static<typeof Policy>;

export const LinkedSession = Type.Object({
  traceId: Type.String(),
  sessionId: Type.String(),
  startedAt: Type.String(),
  endedAt: Type.Optional(Type.String()),
  /** null when nothing is checkable (metrics tier, or a document carrying no facts). */
  verification: Type.Union([SessionVerification, Type.Null()]),
});
export type LinkedSession = Static<typeof LinkedSession>;

export const CiState = Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('pending')]);
export type CiState = Static<typeof CiState>;

export const FindingSeverity = Type.Union([
  Type.Literal('info'),
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
  Type.Literal('critical'),
]);

export const VerdictInput = Type.Object({
  sessions: Type.Array(LinkedSession),
  /** Linked sessions are still expected (the PR names sessions that have not arrived). */
  waiting: Type.Boolean(),
  /** The PR's commit SHAs, or null when the list could not be read (then no commit-provenance row). */
  commits: Type.Union([Type.Array(Type.String()), Type.Null()]),
  /** The PR's changed files, or null when unreadable (custom validators then read the sessions' edits). */
  changedFiles: Type.Union([Type.Array(Type.String()), Type.Null()]),
  /** CI at the head commit, from emitted results and check webhooks; null when nothing reported. */
  ci: Type.Union([Type.Object({ state: CiState, failed: Type.Array(Type.String()) }), Type.Null()]),
  /** The declared work item's criteria, or null when no work item is declared. */
  criteria: Type.Union([
    Type.Array(Type.Object({ id: Type.String(), text: Type.String(), proven: Type.Boolean() })),
    Type.Null(),
  ]),
  /** Open findings of the PR. */
  findings: Type.Array(Type.Object({ id: Type.String(), severity: FindingSeverity, title: Type.String() })),
  /** Whether the repository's sessions ever ran a typecheck / a linter (shows those rows). */
  history: Type.Object({ typecheck: Type.Boolean(), lint: Type.Boolean() }),
  /** Names of the results emitted for the PR (custom `require.emitted`). */
  emitted: Type.Array(Type.String()),
  /** Kinds of the artifacts uploaded for the PR (custom `require.artifact`). */
  artifacts: Type.Array(Type.String()),
  policy: Policy,
});
export type VerdictInput = Static<typeof VerdictInput>;

export const Evaluation = Type.Object({
  verdict: Verdict,
  /** Rows at `warn` or `block` whose status is not `pass`. */
  flagged: Type.Integer({ minimum: 0 }),
  /** A `block`-level row did not pass: the check run fails and `attest verify` exits 1. */
  blocked: Type.Boolean(),
  rows: Type.Array(VerdictRow),
});
export type Evaluation = Static<typeof Evaluation>;
