// /invite/$token: the link an invitation sends. Signed in, one button joins the org (POST
// /v1/invitations/accept); signed out, it goes to the sign-in page, which carries the invitation through the
// identity provider's sign-in and accepts it there.
import { useState } from 'react';
import { Navigate, createRoute, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { rootRoute } from '../root';
import { ApiClientError } from '../../api/client';
import { acceptInvitation, currentSessionQuery } from '../../api/session';

export const inviteRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'invite/$token',
  component: InvitePage,
});

function InvitePage() {
  const { token } = inviteRoute.useParams();
  const { data: session, isPending } = useQuery(currentSessionQuery);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const qc = useQueryClient();
  if (isPending) return null;
  if (!session) return <Navigate to="/sign-in" search={{ invite: token }} />;
  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      const joined = await acceptInvitation(token);
      await qc.invalidateQueries();
      await navigate({ to: '/o/$org', params: { org: joined.org.name } });
    } catch (err) {
      setError(err instanceof ApiClientError ? err.message : 'Joining failed.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="narrow">
      <div className="card">
        <h1>Join an organization</h1>
        <p>
          You are signed in as <b>{session.user.email}</b>. Accepting adds you to the organization that invited you.
        </p>
        <button className="primary" type="button" disabled={busy} onClick={() => void join()}>
          Accept the invitation
        </button>
        {error && (
          <p className="error-text" role="alert" data-testid="invite-error">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
