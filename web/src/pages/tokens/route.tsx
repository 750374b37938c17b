// /tokens, "Your tokens": the signed-in person's own login tokens (the CLI's from `attest login`, and those
// behind dashboard sign-ins) with when each was made and last used; each can be revoked after a confirmation.
// Revoking the one this browser is signed in with signs it out.
import { createRoute, useNavigate } from '@tanstack/react-router';
import { queryOptions, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { api, unwrap, type paths } from '../../api/client';
import { RevokeTable } from '../../ui/revoke-table';
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
  const qc = useQueryClient();
  const navigate = useNavigate();
  const onRevoked = async (t: MyLoginToken) => {
    if (t.current) {
      qc.clear();
      await navigate({ to: '/sign-in', search: { reason: 'signed-out' } });
      return;
    }
    await qc.invalidateQueries({ queryKey: tokensQuery.queryKey });
  };
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
        <RevokeTable
          rows={tokens}
          testId="tokens-table"
          maxWidth={1080}
          rowKey={(t) => t.id}
          rowProps={(t) => ({ 'data-testid': 'token-row', 'data-id': t.id })}
          columns={[
            {
              header: 'Name',
              cell: (t) => (
                <>
                  {t.name}
                  {t.current && <span className="muted"> (this browser)</span>}
                </>
              ),
            },
            { header: 'Token', className: 'mono', cell: (t) => `${t.prefix}…` },
            { header: 'Created', cell: (t) => formatTime(t.createdAt) },
            {
              header: 'Last used',
              testId: 'token-last-used',
              cell: (t) => (t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'),
            },
            { header: 'Expires', cell: (t) => (t.expiresAt ? formatTime(t.expiresAt) : 'never') },
          ]}
          confirm={{
            title: () => 'Revoke this token?',
            label: 'Revoke',
            body: (t) => (
              <p>
                <b>{t.name}</b> ({t.prefix}…) stops working at once, and so does every dashboard sign-in made with it.
                {t.current && ' This browser is signed in with it: you will be signed out.'}
              </p>
            ),
          }}
          // 204: no body to unwrap; a refusal throws from the client's middleware.
          revoke={(t) => api.DELETE('/v1/me/login-tokens/{tokenId}', { params: { path: { tokenId: t.id } } })}
          onRevoked={onRevoked}
        />
      )}
    </>
  );
}
