// /f/$appId/settings: the factory's settings. API keys, connected repositories and the factory itself, each
// with the controls the caller's permissions allow (GET /v1/orgs/{org}: a member's role in the organization
// is their role in each of its factories). Hidden controls are a courtesy; the API refuses the same requests.
import { createRoute, notFound } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { factoryRoute } from '../factory/route';
import { factoriesQuery } from '../../api/queries';
import { ApiKeysSection } from './ApiKeys';
import { FactorySection } from './FactoryForm';
import { RepositoriesSection } from './Repositories';
import { callerAccessQuery, factorySettingsQuery } from './query';

export const settingsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'settings',
  loader: async ({ context, params }) => {
    const factories = await context.queryClient.ensureQueryData(factoriesQuery);
    const factory = factories.find((f) => f.id === params.appId);
    if (!factory) throw notFound();
    const [access] = await Promise.all([
      context.queryClient.ensureQueryData(callerAccessQuery(factory.org.name)),
      context.queryClient.ensureQueryData(factorySettingsQuery(params.appId)),
    ]);
    return { orgName: factory.org.name, access };
  },
  component: SettingsPage,
});

function SettingsPage() {
  const { appId } = settingsRoute.useParams();
  const { orgName } = settingsRoute.useLoaderData();
  const { data: access } = useSuspenseQuery(callerAccessQuery(orgName));
  const may = new Set(access.permissions);
  return (
    <div className="settings">
      <h1>Settings</h1>
      <p className="muted" data-testid="settings-role">
        Your role in {orgName}: <strong>{access.role ?? 'none'}</strong>. Controls your role does not allow are not shown; the gateway refuses those requests too.
      </p>
      <FactorySection appId={appId} canWrite={may.has('apps.write')} role={access.role} />
      <ApiKeysSection appId={appId} canRead={may.has('api_keys.read')} canWrite={may.has('api_keys.write')} role={access.role} callerPermissions={may} />
      <RepositoriesSection appId={appId} canRead={may.has('repositories.read')} />
    </div>
  );
}
