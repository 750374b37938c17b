// The settings page's body, loaded on first visit (route.tsx reads what it needs first).
import { getRouteApi } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { ApiKeysSection } from './ApiKeys';
import { ChannelsSection } from './Channels';
import { FactorySection } from './FactoryForm';
import { InstallationsSection } from './Installations';
import { RepositoriesSection } from './Repositories';
import { RetentionSection } from './Retention';
import { TelemetrySection } from './Telemetry';
import { orgQuery } from '../org/query';

const route = getRouteApi('/signed-in/f/$appId/settings');

export default function SettingsPage() {
  const { appId } = route.useParams();
  const { installed } = route.useSearch();
  const { orgName } = route.useLoaderData();
  const { data: access } = useSuspenseQuery(orgQuery(orgName));
  const may = new Set(access.permissions);
  return (
    <div className="settings">
      <h1>Settings</h1>
      <p className="muted" data-testid="settings-role">
        Your role in {orgName}: <strong>{access.role ?? 'none'}</strong>. Controls your role does not allow are not
        shown; the gateway refuses those requests too.
      </p>
      <FactorySection appId={appId} canWrite={may.has('apps.write')} role={access.role} />
      <RetentionSection appId={appId} canWrite={may.has('apps.write') && may.has('sessions.delete')} />
      <ApiKeysSection
        appId={appId}
        canRead={may.has('api_keys.read')}
        canWrite={may.has('api_keys.write')}
        role={access.role}
        callerPermissions={may}
      />
      <TelemetrySection appId={appId} canCreateKey={may.has('api_keys.write')} />
      <RepositoriesSection
        appId={appId}
        canRead={may.has('repositories.read')}
        canWrite={may.has('repositories.write')}
      />
      <ChannelsSection
        appId={appId}
        canRead={may.has('notifications.read')}
        canWrite={may.has('notifications.write')}
      />
      <InstallationsSection
        appId={appId}
        canRead={may.has('repositories.read')}
        canWrite={may.has('repositories.write')}
        installed={installed}
      />
    </div>
  );
}
