// /sign-in: explains why a link did not work, and signs in with a pasted login token.
import { useState } from 'react';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { rootRoute } from '../root';
import { ApiClientError } from '../../api/client';
import { currentSessionQuery, providersQuery, signInWithToken } from '../../api/session';

const REASONS = [
  'used',
  'expired',
  'invalid',
  'signed-out',
  'provider',
  'error',
  'state',
  'unverified-email',
  'no-org',
  'rate-limited',
  'invitation-invalid',
  'invitation-used',
  'invitation-expired',
  'invitation-revoked',
  'invitation-email',
  'github-install',
  'installation-unreachable',
] as const;
type Reason = (typeof REASONS)[number];

interface SignInSearch {
  reason?: Reason;
  next?: string;
  /** An invitation to accept once signed in (the /invite/<token> page sends people here). */
  invite?: string;
}

const EXPLAIN: Record<Reason, string> = {
  used: 'That sign-in link was already used. Each link signs in once.',
  expired: 'That sign-in link has expired. A link is valid for 10 minutes.',
  invalid: 'That sign-in link is not valid. Check that it was copied whole.',
  'signed-out': 'You are signed out.',
  provider: 'The identity provider did not sign you in. Try again, or ask your administrator.',
  error: 'Signing you in failed on this gateway. Try again; if it keeps failing, ask your administrator.',
  state: 'That sign-in was not started in this browser, or was already finished. Start again.',
  'unverified-email': 'The identity provider did not confirm a verified email address for you.',
  'no-org': 'You are signed in, but not a member of any organization here yet. Ask an owner for an invitation.',
  'rate-limited': 'Too many sign-in attempts. Wait a minute and try again.',
  'invitation-invalid': 'That invitation link is not valid. Check that it was copied whole.',
  'invitation-used': 'That invitation was already used. Each works once.',
  'invitation-expired': 'That invitation has expired (7 days). Ask for a new one.',
  'invitation-revoked': 'That invitation was revoked. Ask for a new one.',
  'invitation-email': 'That invitation is for another email address. Sign in with the address it was sent to.',
  'github-install':
    'To bind a GitHub App installation to a factory, sign in with GitHub first (as the person who asked for the ' +
    'install link), then open the install link again.',
  'installation-unreachable':
    'The GitHub account you signed in with cannot reach that installation. Sign in with GitHub as an account that ' +
    'can, then open the install link again.',
};

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'sign-in',
  validateSearch: (s: Record<string, unknown>): SignInSearch => ({
    ...(typeof s.reason === 'string' && (REASONS as readonly string[]).includes(s.reason)
      ? { reason: s.reason as Reason }
      : {}),
    ...(typeof s.next === 'string' && s.next.startsWith('/') && !s.next.startsWith('//') ? { next: s.next } : {}),
    ...(typeof s.invite === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(s.invite) ? { invite: s.invite } : {}),
  }),
  component: SignInPage,
});

/** A provider's start URL carrying the invitation to accept and the page to come back to (e.g. /cli-login). */
function providerHref(url: string, invite: string | undefined, next: string | undefined): string {
  const q = new URLSearchParams();
  if (invite) q.set('invite', invite);
  if (next) q.set('next', next);
  const s = q.toString();
  return s ? `${url}?${s}` : url;
}

function SignInPage() {
  const { reason, next, invite } = signInRoute.useSearch();
  const { data: providers } = useQuery(providersQuery);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const gateway = window.location.origin;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await signInWithToken(token.trim());
      qc.clear();
      qc.setQueryData(currentSessionQuery.queryKey, session);
      await navigate({ to: next ?? '/' });
    } catch (err) {
      setError(err instanceof ApiClientError ? err.message : 'Sign-in failed.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="narrow">
      <div className="card">
        <h1>Sign in to Attest</h1>
        {reason && (
          <p className={reason === 'signed-out' ? 'muted' : 'notice'} data-testid="sign-in-reason">
            {EXPLAIN[reason]}
          </p>
        )}
        {invite && <p data-testid="invite-note">Sign in to accept your invitation.</p>}
        {providers && providers.length > 0 && (
          <div className="filters" data-testid="providers">
            {providers.map((p) => (
              <a
                key={p.id}
                className="button primary"
                href={providerHref(p.url, invite, next)}
                data-testid={`provider-${p.id}`}
              >
                Sign in with {p.name}
              </a>
            ))}
          </div>
        )}
        <p>Get a one-time sign-in link from the command line, logged in to this gateway:</p>
        <pre>{`attest login --url ${gateway}\nattest dashboard`}</pre>
        <p className="muted">The link opens the dashboard signed in as you, and works once, for 10 minutes.</p>
        <h2>Or paste a login token</h2>
        <form onSubmit={(e) => void submit(e)} style={{ display: 'flex', gap: 8 }}>
          <input
            aria-label="Login token"
            name="loginToken"
            type="password"
            autoComplete="off"
            placeholder="olu_…"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            style={{ flex: 1 }}
          />
          <button className="primary" type="submit" disabled={busy || token.trim() === ''}>
            Sign in
          </button>
        </form>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <p className="muted">Only a login token signs in; API keys never do.</p>
      </div>
    </div>
  );
}
