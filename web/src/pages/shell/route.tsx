// The signed-in frame: every page but sign-in sits under it. Nobody signed in → /sign-in.
import { Link, Outlet, createRoute, redirect, useNavigate, useParams } from '@tanstack/react-router';
import { useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { rootRoute } from '../root';
import { currentSessionQuery, signOut } from '../../api/session';
import { factoriesQuery } from '../../api/queries';

export const shellRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: async ({ context, location }) => {
    const session = await context.queryClient.fetchQuery(currentSessionQuery);
    if (!session) throw redirect({ to: '/sign-in', search: { next: location.href } });
    return { session };
  },
  component: Shell,
});

function Shell() {
  const { data: session } = useSuspenseQuery(currentSessionQuery);
  const params = useParams({ strict: false }) as { appId?: string };
  const factories = useQuery(factoriesQuery);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const current = factories.data?.find((f) => f.id === params.appId);
  const onSignOut = async () => {
    await signOut().catch(() => undefined);
    qc.clear();
    await navigate({ to: '/sign-in', search: { reason: 'signed-out' } });
  };
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/" className="brand">
          Attest
        </Link>
        {current && (
          <>
            <span className="muted" data-testid="factory-name">
              {current.org.name} / {current.display_name || current.name}
            </span>
            <nav>
              <Link to="/f/$appId" params={{ appId: current.id }} activeOptions={{ exact: true }}>
                Overview
              </Link>
              <Link to="/f/$appId/sessions" params={{ appId: current.id }}>
                Sessions
              </Link>
              <Link to="/f/$appId/prs" params={{ appId: current.id }}>
                Pull requests
              </Link>
              <Link to="/f/$appId/work" params={{ appId: current.id }}>
                Work
              </Link>
              <Link to="/f/$appId/hosts" params={{ appId: current.id }}>
                Hosts
              </Link>
              <Link to="/f/$appId/budgets" params={{ appId: current.id }}>
                Budgets
              </Link>
              <Link to="/f/$appId/settings" params={{ appId: current.id }}>
                Settings
              </Link>
              <Link to="/o/$org" params={{ org: current.org.name }} data-testid="nav-org">
                Organization
              </Link>
            </nav>
          </>
        )}
        <span className="spacer" />
        <span className="who">{session?.user.email}</span>
        <Link to="/tokens" data-testid="nav-tokens">
          Your tokens
        </Link>
        <button onClick={() => void onSignOut()}>Sign out</button>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  );
}
