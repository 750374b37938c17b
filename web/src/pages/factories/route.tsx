// `/`: the factory picker. With exactly one factory it goes straight to that factory.
import { Link, createRoute, redirect } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { factoriesQuery } from '../../api/queries';

export const factoriesRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: '/',
  loader: async ({ context }) => {
    const factories = await context.queryClient.ensureQueryData(factoriesQuery);
    if (factories.length === 1) throw redirect({ to: '/f/$appId', params: { appId: factories[0]!.id } });
  },
  component: FactoriesPage,
});

function FactoriesPage() {
  const { data: factories } = useSuspenseQuery(factoriesQuery);
  if (factories.length === 0) {
    return (
      <div className="empty narrow">
        <h1>No factories yet</h1>
        <p>
          You are not a member of any factory on this gateway. Ask an owner of your organization to add you, or create
          one:
        </p>
        <pre>{`attest apps create <name>`}</pre>
      </div>
    );
  }
  return (
    <>
      <h1>Factories</h1>
      <table className="grid" style={{ maxWidth: 720 }}>
        <thead>
          <tr>
            <th>Factory</th>
            <th>Organization</th>
            <th>Your role</th>
          </tr>
        </thead>
        <tbody>
          {factories.map((f) => (
            <tr key={f.id}>
              <td>
                <Link to="/f/$appId" params={{ appId: f.id }}>
                  {f.display_name || f.name}
                </Link>
              </td>
              <td>
                <Link to="/o/$org" params={{ org: f.org.name }}>
                  {f.org.name}
                </Link>
              </td>
              <td>{f.role}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
