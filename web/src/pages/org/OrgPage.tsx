// The organization page's content (lazy-loaded from route.tsx).
import { Link, getRouteApi, useNavigate } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { factoriesQuery } from '../../api/queries';
import { formatTime } from '../../ui/format';
import { AuditLog } from './AuditLog';
import { Invitations } from './Invitations';
import { Members } from './Members';
import { orgQuery, type AuditSearch } from './query';

const orgRoute = getRouteApi('/signed-in/o/$org');

export function OrgPage() {
  const { org } = orgRoute.useParams();
  const search = orgRoute.useSearch();
  const navigate = useNavigate({ from: '/o/$org' });
  const { data: info } = useSuspenseQuery(orgQuery(org));
  const { data: factories } = useSuspenseQuery(factoriesQuery);
  const may = (p: string) => info.permissions.includes(p);
  const ours = factories.filter((f) => f.org.id === info.id);
  const onSearch = (next: AuditSearch) => void navigate({ search: next, replace: false });
  return (
    <>
      <h1>
        Organization <span data-testid="org-name">{info.name}</span>
      </h1>
      <dl className="facts" data-testid="org-facts">
        <div>
          <dt>Plan</dt>
          <dd data-testid="org-plan">{info.plan}</dd>
        </div>
        <div>
          <dt>Your role</dt>
          <dd data-testid="org-role">{info.role ?? '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(info.created_at)}</dd>
        </div>
        <div>
          <dt>Factories</dt>
          <dd>
            {ours.length === 0
              ? '—'
              : ours.map((f, i) => (
                  <span key={f.id}>
                    {i > 0 && ', '}
                    <Link to="/f/$appId" params={{ appId: f.id }}>
                      {f.display_name || f.name}
                    </Link>
                  </span>
                ))}
          </dd>
        </div>
      </dl>
      <p className="muted">
        The plan is set by the gateway's operator (<code>attest admin</code>); the audit log needs the enterprise plan.
      </p>
      <Members org={org} canWrite={may('members.write')} />
      {may('members.write') && <Invitations org={org} />}
      {may('audit.read') ? (
        <AuditLog org={org} search={search} onSearch={onSearch} />
      ) : (
        <section data-testid="audit">
          <h2>Audit log</h2>
          <p className="muted" data-testid="audit-forbidden">
            You need owner or admin to read the audit log.
          </p>
        </section>
      )}
    </>
  );
}
