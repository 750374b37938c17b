// AgentSession v1: the body of each session in POST /v1/agents/sync. Mirrors
// test/fixtures/outerlayer-session-schema/agent-session.v1.schema.json field for field. The schema allows
// unknown fields on most objects; these types list the fields this capture writes.

export type CaptureTier = 'metrics' | 'redacted' | 'full';

export interface TurnUsage {
  in: number;
  out: number;
  cacheRead: number;
  cacheCreate: number;
  /** The part of `cacheCreate` written with the one-hour TTL (API.md §10); the rest is five-minute. */
  cacheCreate1h?: number;
}

export type ToolCallStatus = 'ok' | 'error' | 'rejected';

export interface ToolCallV1 {
  name: string;
  status: ToolCallStatus;
  isEdit: boolean;
  toolUseId?: string;
  startTs?: string;
  durationMs?: number;
  /** tier:redacted — the file the tool touched, relative to the session's cwd when inside it. */
  file?: string;
  /** tier:redacted — the first line of the error, scrubbed. */
  errorSignature?: string;
  /** tier:full */
  input?: unknown;
  /** tier:full */
  output?: unknown;
}

export interface ImageRefV1 {
  mediaType: string;
  sha256: string;
  bytes?: number;
}

export interface TurnV1 {
  index: number;
  role: 'user' | 'assistant';
  toolCalls: ToolCallV1[];
  ts?: string;
  messageId?: string;
  model?: string;
  source?: 'human' | 'peer' | 'notification';
  usage?: TurnUsage;
  durationMs?: number;
  costUsd?: number | null;
  /** tier:full (null below full when the turn had text) */
  text?: string | null;
  /** tier:full */
  thinking?: string | null;
  /** tier:full */
  images?: ImageRefV1[];
  /** tier:full */
  vendor?: Record<string, unknown>;
}

export type SessionEventType = 'compaction' | 'pr_linked' | 'api_error' | 'interrupt' | (string & {});

export interface SessionEventV1 {
  type: SessionEventType;
  seq: number;
  ts?: string;
  turnIndex?: number;
  /** tier:redacted */
  data?: Record<string, unknown>;
  /** tier:full */
  errorText?: string[];
}

export interface WarningV1 {
  code: string;
  count: number;
  /** tier:redacted */
  detail?: string;
}

export interface PrRefV1 {
  prNumber: number;
  prUrl?: string;
  commitShas?: string[];
}

/** A session's token counts: what a price is computed from. */
export interface TokenTotalsV1 {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd?: number | null;
}

export interface TotalsV1 extends TokenTotalsV1 {
  wallClockMs?: number;
}

export interface AgentSessionV1 {
  schemaVersion: 1;
  id: string;
  agent: { type: string; version?: string; entrypoint?: string; origin?: string };
  env: { cwd?: string; gitBranch?: string; gitRepo?: string; commitSha?: string; os?: string };
  startedAt: string;
  endedAt?: string;
  models: string[];
  turns: TurnV1[];
  events: SessionEventV1[];
  totals: TotalsV1;
  captureTier: CaptureTier;
  warnings: WarningV1[];
  actor?: { id?: string; email?: string };
  subagent?: { agentId?: string; parentSessionId?: string };
  /** tier:redacted */
  outcome?: { prNumber?: number; prUrl?: string; prs?: PrRefV1[]; commitShas?: string[] };
  /** tier:full */
  title?: string;
  /** tier:full */
  vendor?: Record<string, unknown>;
  workerKind?: 'seat' | 'cloud' | 'ci' | 'shared';
  chunk?: {
    part: number;
    of: number;
    counts: {
      turns: number;
      toolCalls: number;
      errors: number;
      userTurns?: number;
      apiErrors?: number;
      rejectedToolCalls?: number;
      permissionPrompts?: number;
    };
  };
}

export interface ParseOptions {
  /** Default 'redacted': no message text leaves the machine. */
  tier?: CaptureTier;
  /** Where the file was read from; names the session when the file carries no id. */
  sourcePath?: string;
}
