import { Suspense, lazy, useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { sessionRoute } from './route';
import { api, factory } from '../../api/client';
import { DeleteButton } from '../../ui/delete-button';
import { asTurns, sessionQuery, type SessionDetail, type ToolCall, type Turn, type TurnImage } from './query';
import { Cost, formatDuration, formatInt, formatTime, formatUsd } from '../../ui/format';
import { PrOutcomeChips } from '../../ui/pr';
import { Loading } from '../../ui/states';
import { ErrorControls, isFailed, useErrorKeys, useErrorNav } from './error-nav';
import { ToolSummary } from './tool-summary';
import { sessionTitleText } from '../../ui/session-title';
import { useMarkedTurn, useScrollToTurn } from './turnAnchor';
import { VerificationTab } from './VerificationTab';

const Timeline = lazy(() => import('./Timeline'));

export function SessionPage() {
  const { appId, traceId } = sessionRoute.useParams();
  const { view } = sessionRoute.useSearch();
  const { data: s } = useSuspenseQuery(sessionQuery(appId, traceId));
  const navigate = useNavigate({ from: sessionRoute.fullPath });
  const qc = useQueryClient();
  const turns = asTurns(s.turns);
  return (
    <>
      <p className="muted">
        <Link to="/f/$appId/sessions" params={{ appId }}>
          Sessions
        </Link>{' '}
        /
      </p>
      <h1 data-testid="session-title">{sessionTitleText(s.title)}</h1>
      <DeleteButton
        appId={appId}
        permission="sessions.delete"
        what="session"
        body={
          <p>
            The transcript, its subagents' transcripts and every copy of them go for good; metrics and costs are
            adjusted. A link to it will say it was deleted.
          </p>
        }
        run={() => api.DELETE('/v1/sessions/{traceId}', { params: { path: { traceId } }, ...factory(appId) })}
        done={async () => {
          qc.removeQueries({ queryKey: sessionQuery(appId, traceId).queryKey });
          await navigate({ to: '/f/$appId/sessions', params: { appId } });
          await qc.invalidateQueries();
        }}
      />
      <Facts s={s} />
      <Tokens s={s} />
      <Family appId={appId} s={s} />
      <div className="tabs" role="tablist">
        <button role="tab" aria-selected={view === undefined} onClick={() => void navigate({ search: {} })}>
          Transcript ({formatInt(turns.length)} turns)
        </button>
        <button
          role="tab"
          aria-selected={view === 'timeline'}
          onClick={() => void navigate({ search: { view: 'timeline' } })}
        >
          Timeline
        </button>
        <button
          role="tab"
          aria-selected={view === 'verification'}
          onClick={() => void navigate({ search: { view: 'verification' } })}
        >
          Verification
        </button>
      </div>
      {view === 'timeline' ? (
        <Suspense fallback={<Loading />}>
          <Timeline session={s} turns={turns} />
        </Suspense>
      ) : view === 'verification' ? (
        <VerificationTab appId={appId} traceId={traceId} tier={s.captureTier} verification={s.verification} />
      ) : (
        <Transcript appId={appId} turns={turns} tier={s.captureTier} />
      )}
    </>
  );
}

function Facts({ s }: { s: SessionDetail }) {
  const facts: Array<[string, React.ReactNode]> = [
    ['Agent', `${s.agentType}${s.agentVersion ? ` ${s.agentVersion}` : ''}`],
    ['Actor', s.actorName || s.actorId],
    ['Repository', s.repo || '—'],
    ['Branch', s.branch || '—'],
    ['Capture tier', s.captureTier],
    ['Models', s.models.join(', ') || '—'],
    ['Started', formatTime(s.startedAt)],
    ['Duration', formatDuration(s.durationMs)],
    // biome-ignore lint/correctness/useJsxKeyInIterable: a [label, value] pair; its row is keyed by label.
    ['Cost', <Cost usd={s.costUsd} status={s.costStatus} unpricedModels={s.unpricedModels} />],
    ['Turns', `${formatInt(s.turnCount)} (${formatInt(s.userTurnCount)} from the user)`],
    [
      'Tool calls',
      `${formatInt(s.toolCallCount)} (${formatInt(s.toolErrorCount)} failed, ${formatInt(s.rejectedToolCallCount)} ` +
        `denied)`,
    ],
    ['Errors', formatInt(s.errorCount)],
    ['Origin', s.origin],
    ['Worker', s.workerKind || '—'],
  ];
  return (
    <dl className="facts" data-testid="session-facts">
      {facts.map(([k, v]) => (
        <div key={k} data-fact={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Tokens({ s }: { s: SessionDetail }) {
  return (
    <>
      <h2>Tokens</h2>
      <table className="grid" data-testid="tokens" style={{ maxWidth: 820 }}>
        <thead>
          <tr>
            <th>Model</th>
            <th className="num">Turns</th>
            <th className="num">Input</th>
            <th className="num">Output</th>
            <th className="num">Cache read</th>
            <th className="num">Cache write</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {s.modelUsage.map((u) => (
            <tr key={u.model}>
              <td>{u.model}</td>
              <td className="num">{formatInt(u.turns)}</td>
              <td className="num">{formatInt(u.tokens.input)}</td>
              <td className="num">{formatInt(u.tokens.output)}</td>
              <td className="num">{formatInt(u.tokens.cacheRead)}</td>
              <td className="num">{formatInt(u.tokens.cacheWrite)}</td>
              <td className="num">
                {s.unpricedModels.includes(u.model) ? <span className="muted">unpriced</span> : formatUsd(u.costUsd)}
              </td>
            </tr>
          ))}
          <tr data-testid="tokens-total">
            <th>Total</th>
            <td />
            <td className="num">{formatInt(s.tokens.input)}</td>
            <td className="num">{formatInt(s.tokens.output)}</td>
            <td className="num">{formatInt(s.tokens.cacheRead)}</td>
            <td className="num">{formatInt(s.tokens.cacheWrite)}</td>
            <td className="num">
              <Cost usd={s.costUsd} status={s.costStatus} unpricedModels={s.unpricedModels} />
            </td>
          </tr>
        </tbody>
      </table>
    </>
  );
}

function Family({ appId, s }: { appId: string; s: SessionDetail }) {
  if (s.prOutcomes.length === 0 && !s.parentSessionId && s.subagents.length === 0) return null;
  return (
    <div data-testid="session-links">
      {s.prOutcomes.length > 0 && (
        <p>
          Pull requests: <PrOutcomeChips appId={appId} repo={s.repo} outcomes={s.prOutcomes} />
        </p>
      )}
      {s.parentSessionId && (
        <p>
          Subagent of{' '}
          {s.parentTraceId ? (
            <Link to="/f/$appId/sessions/$traceId" params={{ appId, traceId: s.parentTraceId }}>
              the parent session
            </Link>
          ) : (
            <span className="muted">session {s.parentSessionId} (not received)</span>
          )}
        </p>
      )}
      {s.subagents.length > 0 && (
        <>
          <h2>Subagent sessions ({formatInt(s.subagents.length)})</h2>
          <ul>
            {s.subagents.map((sub) => (
              <li key={sub.traceId}>
                <Link to="/f/$appId/sessions/$traceId" params={{ appId, traceId: sub.traceId }}>
                  {sessionTitleText(sub.title)}
                </Link>{' '}
                <span className="muted">
                  {sub.agentType} · {formatTime(sub.startedAt)} ·{' '}
                </span>
                <Cost usd={sub.costUsd} status={sub.costStatus} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** The transcript, virtualized: only the turns in view are in the DOM, so 1,000+ turns scroll smoothly. */
function Transcript({ appId, turns, tier }: { appId: string; turns: Turn[]; tier: string }) {
  const parent = useRef<HTMLDivElement>(null);
  const nav = useErrorNav(turns);
  const shown = nav.shown;
  const v = useVirtualizer({
    count: shown.length,
    getScrollElement: () => parent.current,
    estimateSize: () => 96,
    overscan: 6,
  });
  const { go } = nav;
  const move = useCallback(
    (step: 1 | -1) => {
      const at = go(step);
      if (at !== null) v.scrollToIndex(at, { align: 'start' });
    },
    [go, v],
  );
  useErrorKeys(move);
  const marked = useMarkedTurn();
  // The marked turn's place among the turns shown (the failed-only filter may hide it).
  const markedPosition = marked === null ? -1 : shown.findIndex((t) => t.index === marked);
  const markedExists = marked !== null && turns.some((t) => t.index === marked);
  useScrollToTurn(v, parent, marked, markedPosition);
  if (turns.length === 0)
    return (
      <p className="empty">
        This session has no turns
        {tier === 'metrics' ? ' (captured at the metrics tier: counts only, no transcript)' : ''}.
      </p>
    );
  const currentTurn = nav.current === -1 ? null : nav.errors[nav.current]!;
  return (
    <>
      <ErrorControls nav={nav} total={turns.length} move={move} />
      {marked !== null && !markedExists && (
        <p className="notice" data-testid="turn-missing">
          Turn #{marked} is not in this transcript.
        </p>
      )}
      {markedExists && markedPosition < 0 && (
        <p className="notice" data-testid="turn-hidden">
          Turn #{marked} is hidden by "Failed calls only".
        </p>
      )}
      <div ref={parent} className="transcript" data-testid="transcript">
        <div style={{ height: v.getTotalSize(), position: 'relative', width: '100%' }}>
          {v.getVirtualItems().map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={v.measureElement}
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}
            >
              <TurnView
                appId={appId}
                turn={shown[item.index]!}
                failedOnly={nav.failedOnly}
                current={item.index === currentTurn}
                marked={item.index === markedPosition}
              />
            </div>
          ))}
        </div>
      </div>
    </>
  );
}

function TurnView({
  appId,
  turn,
  failedOnly,
  current,
  marked,
}: {
  appId: string;
  turn: Turn;
  failedOnly: boolean;
  current: boolean;
  marked: boolean;
}) {
  const calls = failedOnly ? turn.toolCalls.filter((c) => isFailed(c.status)) : turn.toolCalls;
  return (
    <article
      className={`turn ${turn.role}${current ? ' current-error' : ''}${marked ? ' marked' : ''}`}
      data-turn={turn.index}
      data-role={turn.role}
      data-current-error={current || undefined}
      aria-current={marked ? 'location' : undefined}
    >
      {/* No per-turn cost: the document's own turn cost is the sender's estimate; the gateway prices
          sessions itself (the facts and the tokens table above), and two different numbers would mislead. */}
      <header>
        <span className="role">
          {turn.role === 'user' && turn.source && turn.source !== 'human' ? `${turn.source}` : turn.role}
        </span>
        <span>#{turn.index}</span>
        {turn.ts && <span>{formatTime(turn.ts)}</span>}
        {turn.model && <span>{turn.model}</span>}
        {turn.durationMs !== undefined && <span>{formatDuration(turn.durationMs)}</span>}
        {turn.usage && (
          <span>
            {formatInt(turn.usage.in)} in · {formatInt(turn.usage.out)} out · {formatInt(turn.usage.cacheRead)} cache
            read · {formatInt(turn.usage.cacheCreate)} cache write
          </span>
        )}
      </header>
      {!failedOnly && turn.thinking && <div className="thinking">{turn.thinking}</div>}
      {failedOnly ? null : turn.text ? (
        <div className="text">{turn.text}</div>
      ) : turn.text === undefined && turn.toolCalls.length === 0 && !turn.images?.length ? (
        <div className="muted">(text not captured)</div>
      ) : null}
      {!failedOnly && turn.images?.map((img) => <BlobImage key={img.sha256} appId={appId} image={img} />)}
      {calls.map((c, i) => (
        <ToolCallView key={i} call={c} />
      ))}
    </article>
  );
}

const STATUS_TEXT: Record<string, string> = { ok: 'ok', error: 'failed', rejected: 'denied' };

function preview(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  return s.length > 4000 ? `${s.slice(0, 4000)}\n… (${formatInt(s.length - 4000)} more characters)` : s;
}

function ToolCallView({ call }: { call: ToolCall }) {
  const detail = call.input !== undefined || call.output !== undefined;
  const line = (
    <>
      <span className="status" data-status={call.status}>
        {STATUS_TEXT[call.status] ?? call.status}
      </span>{' '}
      {call.name} <ToolSummary call={call} />
      {call.durationMs !== undefined && <span className="muted"> · {formatDuration(call.durationMs)}</span>}
      {call.errorSignature && <span className="error-text"> · {call.errorSignature}</span>}
    </>
  );
  return (
    <div className={`tool ${call.status}`} data-tool={call.name}>
      {detail ? (
        <details>
          <summary>{line}</summary>
          {call.input !== undefined && <pre>{preview(call.input)}</pre>}
          {call.output !== undefined && <pre>{preview(call.output)}</pre>}
        </details>
      ) : (
        line
      )}
    </div>
  );
}

/** A pasted image: the blob route needs the factory header, so it is fetched and shown from memory. */
function BlobImage({ appId, image }: { appId: string; image: TurnImage }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    // The session's image URL is always this route (GET /v1/agents/blob/{sha256}).
    api
      .GET('/v1/agents/blob/{sha256}', {
        params: { path: { sha256: image.sha256 } },
        parseAs: 'blob',
        ...factory(appId),
      })
      .then(({ data }) => {
        if (!live || !data) return;
        url = URL.createObjectURL(data);
        setSrc(url);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [appId, image.sha256]);
  if (failed) return <div className="muted">(image {image.sha256.slice(0, 12)}… not available)</div>;
  return src ? (
    <img src={src} alt={`pasted image (${image.mediaType})`} />
  ) : (
    <div className="muted">loading image…</div>
  );
}
