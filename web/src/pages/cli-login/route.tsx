// /cli-login: where `attest login` sends the browser. The signed-in person sees which machine asks and where
// the code will go, and confirms; the gateway then hands the page a one-time code for the CLI's loopback
// redirect (POST /v1/cli-login/codes checks that it is exactly http://127.0.0.1:<port>/<path>), and the page
// sends the browser there. Nothing happens without the click.
import { useState } from 'react';
import { createRoute } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { ApiClientError, api, unwrap } from '../../api/client';
import { currentSessionQuery } from '../../api/session';

interface CliLoginSearch {
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  client?: string;
}

const pick = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export const cliLoginRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'cli-login',
  validateSearch: (s: Record<string, unknown>): CliLoginSearch => {
    const out: CliLoginSearch = {};
    for (const k of ['redirect_uri', 'code_challenge', 'code_challenge_method', 'state', 'client'] as const) {
      const v = pick(s[k]);
      if (v !== undefined) out[k] = v;
    }
    return out;
  },
  component: CliLoginPage,
});

/** The port the CLI listens on, to show; null when the redirect is not a URL at all. */
function portOf(uri: string): string | null {
  try {
    return new URL(uri).port || null;
  } catch {
    return null;
  }
}

function CliLoginPage() {
  const search = cliLoginRoute.useSearch();
  const { data: session } = useSuspenseQuery(currentSessionQuery);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const { redirect_uri: redirectUri, code_challenge: codeChallenge, state, client } = search;
  if (!redirectUri || !codeChallenge || !state || search.code_challenge_method !== 'S256') {
    return (
      <div className="narrow card" data-testid="cli-login">
        <h1>Sign in the attest CLI</h1>
        <p className="notice" role="alert">
          This link is incomplete. Run <code>attest login --url {window.location.origin}</code> again and open the link
          it prints.
        </p>
      </div>
    );
  }
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      const { data } = await unwrap(
        api.POST('/v1/cli-login/codes', {
          body: {
            redirectUri,
            codeChallenge,
            codeChallengeMethod: 'S256',
            state,
            clientName: client ?? 'attest CLI',
          },
        }),
      );
      window.location.assign(data.redirectTo);
    } catch (err) {
      setError(err instanceof ApiClientError ? err.message : 'The gateway did not answer.');
      setBusy(false);
    }
  };
  return (
    <div className="narrow">
      <div className="card" data-testid="cli-login">
        <h1>Sign in the attest CLI</h1>
        <p>
          <b data-testid="cli-login-client">{client ?? 'An attest CLI'}</b> asks to sign in as{' '}
          <b>{session?.user.email}</b>. It gets a login token of its own that acts as you in every organization you
          belong to; you can revoke it on <a href="/tokens">Your tokens</a>.
        </p>
        <p className="muted">
          Confirm only if you just ran <code>attest login</code> yourself, on this computer. The code goes to the CLI
          listening on this computer, port <span data-testid="cli-login-port">{portOf(redirectUri) ?? '?'}</span>.
        </p>
        {cancelled ? (
          <p role="status">Cancelled: nothing was signed in. Stop the CLI with Ctrl-C.</p>
        ) : (
          <div className="filters">
            <button className="primary" type="button" disabled={busy} onClick={() => void confirm()}>
              Sign in the CLI
            </button>
            <button type="button" disabled={busy} onClick={() => setCancelled(true)}>
              Cancel
            </button>
          </div>
        )}
        {error && (
          <p className="error-text" role="alert" data-testid="cli-login-error">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
