import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

export type SessionDetail =
  paths['/v1/sessions/{traceId}']['get']['responses']['200']['content']['application/json']['data'];

export const sessionQuery = (appId: string, traceId: string) =>
  queryOptions({
    queryKey: ['session', appId, traceId],
    queryFn: () =>
      unwrap(api.GET('/v1/sessions/{traceId}', { params: { path: { traceId } }, ...factory(appId) })).then(
        (r) => r.data,
      ),
    staleTime: 30_000,
  });

// The transcript's turns are the AgentSession v1 document as stored (the API types them as unknown). These
// are the fields the page reads; each is checked before use.
export interface ToolCall {
  name: string;
  status: 'ok' | 'error' | 'rejected' | string;
  isEdit?: boolean;
  file?: string;
  durationMs?: number;
  startTs?: string;
  errorSignature?: string;
  input?: unknown;
  output?: unknown;
}
export interface TurnImage {
  sha256: string;
  mediaType: string;
  url?: string;
}
export interface Turn {
  index: number;
  role: 'user' | 'assistant';
  source?: string;
  ts?: string;
  model?: string;
  text?: string | null;
  thinking?: string | null;
  durationMs?: number;
  costUsd?: number | null;
  toolCalls: ToolCall[];
  images?: TurnImage[];
  usage?: { in: number; out: number; cacheRead: number; cacheCreate: number };
}

export function asTurns(raw: unknown[]): Turn[] {
  return raw.filter((t): t is Turn => {
    if (typeof t !== 'object' || t === null) return false;
    const o = t as Record<string, unknown>;
    return (o.role === 'user' || o.role === 'assistant') && Array.isArray(o.toolCalls);
  });
}
