// /f/$appId/work: the factory's work items as a board, one column per stage. Each card: its claim (source,
// branch, time left on the lease), whether it is startable, its block class. Withdrawn items only on request
// (?withdrawn=1), so the toggle is a link like every other view.
import { Link, createRoute, useNavigate } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { factoryRoute } from '../factory/route';
import { STAGES, STAGE_LABEL, withdrawnItemsQuery, workItemsQuery, type WorkEntry } from './query';
import { formatInt } from '../../ui/format';
import { leaseLeft, useNow } from '../../ui/time';

interface WorkSearch {
  /** '1': show the withdrawn items too. */
  withdrawn?: '1';
}

export const workRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'work',
  validateSearch: (s: Record<string, unknown>): WorkSearch =>
    s.withdrawn === '1' || s.withdrawn === 'true' || s.withdrawn === true || s.withdrawn === 1
      ? { withdrawn: '1' }
      : {},
  loader: ({ context, params }) =>
    Promise.all([
      context.queryClient.ensureQueryData(workItemsQuery(params.appId)),
      context.queryClient.ensureQueryData(withdrawnItemsQuery(params.appId)),
    ]),
  component: WorkBoard,
});

interface Card extends WorkEntry {
  withdrawn: boolean;
}

function WorkBoard() {
  const { appId } = workRoute.useParams();
  const search = workRoute.useSearch();
  const navigate = useNavigate({ from: workRoute.fullPath });
  const { data: live } = useSuspenseQuery(workItemsQuery(appId));
  const { data: withdrawn } = useSuspenseQuery(withdrawnItemsQuery(appId));
  const now = useNow(1000);
  const showWithdrawn = search.withdrawn === '1';
  const cards: Card[] = [
    ...live.items.map((i) => ({ ...i, withdrawn: false })),
    ...(showWithdrawn ? withdrawn.items.map((i) => ({ ...i, withdrawn: true })) : []),
  ].sort((a, b) => a.number - b.number);
  // A stage the board does not know yet still gets a column rather than vanishing.
  const stages = [
    ...STAGES,
    ...new Set(cards.map((c) => c.stage).filter((s) => !(STAGES as readonly string[]).includes(s))),
  ];

  if (live.items.length === 0 && withdrawn.items.length === 0)
    return (
      <>
        <h1>Work</h1>
        <EmptyBoard appId={appId} />
      </>
    );
  return (
    <>
      <h1>
        Work{' '}
        <span className="muted" data-testid="work-total">
          {formatInt(live.items.length)}
        </span>
      </h1>
      <div className="filters">
        <label className="inline">
          <input
            type="checkbox"
            name="withdrawn"
            checked={showWithdrawn}
            onChange={(e) => void navigate({ search: e.target.checked ? { withdrawn: '1' } : {} })}
          />
          Show withdrawn ({formatInt(withdrawn.items.length)})
        </label>
        <span className="muted">Refreshes every 10 s.</span>
      </div>
      {(live.truncated || (showWithdrawn && withdrawn.truncated)) && (
        <p className="notice">This factory has more work items than the board shows (the first 5,000).</p>
      )}
      <div className="board" data-testid="work-board">
        {stages.map((stage) => {
          const inStage = cards.filter((c) => c.stage === stage);
          return (
            <section
              key={stage}
              className="board-column"
              data-testid={`stage-${stage}`}
              aria-label={STAGE_LABEL[stage] ?? stage}
            >
              <h2>
                {STAGE_LABEL[stage] ?? stage} <span className="muted">{formatInt(inStage.length)}</span>
              </h2>
              {inStage.length === 0 ? (
                <p className="muted">Nothing here.</p>
              ) : (
                inStage.map((c) => <WorkCard key={c.id} appId={appId} item={c} now={now} />)
              )}
            </section>
          );
        })}
      </div>
    </>
  );
}

function WorkCard({ appId, item, now }: { appId: string; item: Card; now: number }) {
  return (
    <article
      className={`work-card${item.withdrawn ? ' withdrawn' : ''}`}
      data-testid="work-card"
      data-number={item.number}
    >
      <Link to="/f/$appId/work/$itemId" params={{ appId, itemId: item.id }} className="work-card-title">
        #{item.number} {item.title}
      </Link>
      <div className="muted mono">
        {item.tracker} {item.trackerKey}
        {item.section ? ` · ${item.section}` : ''}
      </div>
      <div data-testid="work-card-claim">
        {item.claim ? (
          <>
            <span className="claim-source">{item.claim.source}</span>
            {' · '}
            <span className="mono">{item.claim.branch ?? '(no branch)'}</span>
            {' · '}
            <span
              className={`chip ${Date.parse(item.claim.expiresAt) > now ? '' : 'bad'}`}
              data-testid="lease-left"
              title={`lease ends ${new Date(item.claim.expiresAt).toLocaleString()}`}
            >
              {leaseLeft(item.claim.expiresAt, now)}
            </span>
          </>
        ) : (
          <span className="muted">unclaimed</span>
        )}
      </div>
      <div>
        {item.withdrawn && <span className="chip bad">withdrawn</span>}
        <span className={`chip ${item.startable ? 'ok' : ''}`} data-testid="startable">
          {item.startable ? 'startable' : 'not startable'}
        </span>
        <span className={`chip ${item.blockClass === 'none' ? '' : 'warn'}`} data-testid="block-class">
          {item.blockClass === 'none' ? 'not blocked' : `blocked: ${item.blockClass}`}
        </span>
      </div>
    </article>
  );
}

function EmptyBoard({ appId }: { appId: string }) {
  const origin = window.location.origin;
  return (
    <div className="empty" data-testid="work-empty">
      <p>No work item in this factory yet.</p>
      <p className="muted">
        Work items come from your tracker or your runners through the API: <code>POST /v1/work-items</code> with a
        factory key that has <code>work.write</code> creates one (or updates the one with the same tracker and key).
        Runners then list them (<code>attest work list</code>, or the MCP tool <code>list_work_items</code>) and claim
        one for a branch (<code>attest work claim ITEM --branch B</code>).
      </p>
      <pre>{`curl -X POST ${origin}/v1/work-items \\
  -H "Authorization: Bearer $ATTEST_KEY" -H "X-Outerlayer-App-Id: ${appId}" \\
  -H 'content-type: application/json' \\
  -d '{"tracker":"github","trackerKey":"acme/api#42","title":"Fix the login redirect","stage":"ready"}'`}</pre>
      <p className="muted">See docs/work-items.md for every field.</p>
    </div>
  );
}
