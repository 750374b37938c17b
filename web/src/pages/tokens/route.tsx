// /tokens, "Your tokens": the signed-in person's own login tokens (the CLI's from `attest login`, and those
// behind dashboard sign-ins) with when each was made and last used; each can be revoked after a confirmation.
// Revoking the one this browser is signed in with signs it out.
import { useState } from 'react';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { queryOptions, useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { ApiClientError, api, unwrap, type paths } from '../../api/client';
import { ConfirmDialog } from '../../ui/confirm';
import { formatTime } from '../../ui/format';

type MyLoginToken =
  paths['/v1/me/login-tokens']['get']['responses']['200']['content']['application/json']['data'][number];

const tokensQuery = queryOptions({
  queryKey: ['my-login-tokens'],
  queryFn: async () => (await unwrap(api.GET('/v1/me/login-tokens'))).data,
});

export const tokensRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'tokens',
  loader: ({ context }) => context.queryClient.ensureQueryData(tokensQuery),
  component: TokensPage,
});

function TokensPage() {
  const { data: tokens } = useSuspenseQuery(tokensQuery);
  const [revoking, setRevoking] = useState<MyLoginToken | null>(null);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const revoke = useMutation({
    mutationFn: async (t: MyLoginToken) => {
      // 204: no body to unwrap; a refusal throws from the client's middleware.
      await api.DELETE('/v1/me/login-tokens/{tokenId}', { params: { path: { tokenId: t.id } } });
      return t;
    },
    onSuccess: async (t) => {
      setRevoking(null);
      if (t.current) {
        qc.clear();
        await navigate({ to: '/sign-in', search: { reason: 'signed-out' } });
        return;
      }
      await qc.invalidateQueries({ queryKey: tokensQuery.queryKey });
    },
  });
  return (
    <>
      <h1>Your tokens</h1>
      <p className="muted">
        Login tokens act as you in every organization you belong to. <code>attest login</code> makes one for each
        computer; each dashboard sign-in has one too. Revoke any you no longer use: it stops working at once.
      </p>
      {tokens.length === 0 ? (
        <p className="empty">No live login tokens.</p>
      ) : (
        <table className="grid" data-testid="tokens-table" style={{ maxWidth: 1080 }}>
          <thead>
            <tr>
              <th>Name</th>
              <th>Token</th>
              <th>Created</th>
              <th>Last used</th>
              <th>Expires</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id} data-testid="token-row" data-id={t.id}>
                <td>
                  {t.name}
                  {t.current && <span className="muted"> (this browser)</span>}
                </td>
                <td className="mono">{t.prefix}…</td>
                <td>{formatTime(t.createdAt)}</td>
                <td data-testid="token-last-used">{t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'}</td>
                <td>{t.expiresAt ? formatTime(t.expiresAt) : 'never'}</td>
                <td>
                  <button type="button" onClick={() => setRevoking(t)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this token?"
        confirmLabel="Revoke"
        busy={revoke.isPending}
        error={revoke.isError ? (revoke.error instanceof ApiClientError ? revoke.error.message : 'Failed.') : null}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => {
          setRevoking(null);
          revoke.reset();
        }}
      >
        <p>
          <b>{revoking?.name}</b> ({revoking?.prefix}…) stops working at once, and so does every dashboard sign-in made
          with it.
          {revoking?.current && ' This browser is signed in with it: you will be signed out.'}
        </p>
      </ConfirmDialog>
    </>
  );
}
