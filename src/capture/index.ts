// Capture: agent transcripts on this machine → AgentSession v1 documents, cut to a redaction tier and
// scrubbed of secrets before anything leaves the machine.
export { parseClaudeCodeTranscript, claudeImageBlobs, type ImageBlob } from './claude.js';
export { parseCodexRollout } from './codex.js';
export { normalizeRepoUrl } from '../codehost/repository-name.js';
export { applyTier, isCaptureTier, CAPTURE_TIERS } from './tier.js';
export { scrubString, scrubDeep } from './scrub.js';
export type {
  AgentSessionV1,
  CaptureTier,
  ParseOptions,
  TurnV1,
  TurnUsage,
  ToolCallV1,
  ToolCallStatus,
  SessionEventV1,
  WarningV1,
  PrRefV1,
  ImageRefV1,
} from './types.js';
