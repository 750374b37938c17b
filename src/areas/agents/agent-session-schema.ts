// AgentSession v1, the JSON Schema (draft 2020-12) of each session in POST /v1/agents/sync, exactly as the
// OuterLayer CLI defines it (schemas/NOTICE.md: source and license). Read from schemas/ at the package root,
// three levels up from this module both as src/areas/agents/*.ts and as the built dist/areas/agents/*.js, so
// `npm run build` needs no copy step. test/areas/agents/sync.test.ts checks it equals the vendored fixture.
import fs from 'node:fs';

const SCHEMA_FILE = new URL('../../../schemas/agent-session.v1.schema.json', import.meta.url);

export const AGENT_SESSION_V1_SCHEMA = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
