// /artifacts/$id — exactly the `url` the API returns for an artifact. The id does not name its factory, so
// the page asks GET /v1/me/artifacts/{id}, which finds it in whichever of the user's factories holds it (one
// request); an artifact of a factory they do not belong to is "not found", never shown.
import { Link, createRoute, notFound, useNavigate } from '@tanstack/react-router';
import { queryOptions, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { ApiClientError, api, factory, unwrap } from '../../api/client';
import { DeleteButton } from '../../ui/delete-button';
import { factoriesQuery } from '../../api/queries';
import { ArtifactView } from '../../ui/artifact';
import { formatTime } from '../../ui/format';
import { PrLink } from '../../ui/pr';
import { NotFound } from '../../ui/states';

const artifactQuery = (id: string) =>
  queryOptions({
    queryKey: ['artifact', id],
    queryFn: async ({ client }) => {
      try {
        const { appId, artifact } = (await unwrap(api.GET('/v1/me/artifacts/{id}', { params: { path: { id } } }))).data;
        // The shell has read the factories already: their names, for the breadcrumb.
        const factory = (await client.ensureQueryData(factoriesQuery)).find((f) => f.id === appId);
        return factory ? { factory, artifact } : null;
      } catch (err) {
        if (err instanceof ApiClientError && (err.status === 404 || err.status === 400)) return null;
        throw err;
      }
    },
  });

export const artifactRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'artifacts/$id',
  loader: async ({ context, params }) => {
    const hit = await context.queryClient.ensureQueryData(artifactQuery(params.id));
    if (!hit) throw notFound();
  },
  notFoundComponent: () => <NotFound what="No artifact with this id is in any factory you can read." />,
  component: ArtifactPage,
});

function ArtifactPage() {
  const { id } = artifactRoute.useParams();
  const { data: hit } = useSuspenseQuery(artifactQuery(id));
  const qc = useQueryClient();
  const navigate = useNavigate();
  if (!hit) return <NotFound what="No artifact with this id is in any factory you can read." />;
  const { artifact: a, factory: f } = hit;
  return (
    <>
      <p className="muted">
        <Link to="/f/$appId/prs" params={{ appId: f.id }}>
          {f.org.name} / {f.display_name || f.name}
        </Link>{' '}
        / artifact
      </p>
      <h1 data-testid="artifact-caption">{a.caption || a.filename}</h1>
      <DeleteButton
        appId={f.id}
        permission="artifacts.delete"
        what="artifact"
        body={
          <p>
            The artifact goes for good, and its bytes too unless another artifact or session still shows them. A link to
            it will say it was deleted.
          </p>
        }
        run={() => api.DELETE('/v1/artifacts/{id}', { params: { path: { id } }, ...factory(f.id) })}
        done={async () => {
          qc.removeQueries({ queryKey: ['artifact', id] });
          await navigate({ to: '/f/$appId/prs', params: { appId: f.id } });
          await qc.invalidateQueries();
        }}
      />
      <dl className="facts">
        <div>
          <dt>Kind</dt>
          <dd>{a.kind}</dd>
        </div>
        <div>
          <dt>Criterion</dt>
          <dd>{a.criterionId ?? '—'}</dd>
        </div>
        <div>
          <dt>Pull request</dt>
          <dd>
            {a.prNumber !== null && a.repository ? (
              <PrLink appId={f.id} repository={a.repository} number={a.prNumber}>
                {a.repository}#{a.prNumber}
              </PrLink>
            ) : (
              '—'
            )}
          </dd>
        </div>
        {/* The session page takes the id the agent wrote as well as the trace id (GET /v1/sessions/{id}). */}
        <div>
          <dt>Session</dt>
          <dd className="mono">
            {a.session ? (
              <>
                <Link to="/f/$appId/sessions/$traceId" params={{ appId: f.id, traceId: a.session.sessionId }}>
                  {a.session.sessionId}
                </Link>
                {a.session.turnIndex !== null ? ` (turn ${a.session.turnIndex})` : ''}
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Work item</dt>
          <dd className="mono">
            {a.workItemId ? (
              <Link to="/f/$appId/work/$itemId" params={{ appId: f.id, itemId: a.workItemId }}>
                {a.workItemId}
              </Link>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Emitted</dt>
          <dd>{formatTime(a.emittedAt)}</dd>
        </div>
        <div>
          <dt>File</dt>
          <dd>{a.filename}</dd>
        </div>
        {a.supersedes && (
          <div>
            <dt>Replaces</dt>
            <dd>
              <Link to="/artifacts/$id" params={{ id: a.supersedes }}>
                an earlier artifact
              </Link>
            </dd>
          </div>
        )}
      </dl>
      <div className="artifact">
        <ArtifactView appId={f.id} artifact={a} />
      </div>
    </>
  );
}
