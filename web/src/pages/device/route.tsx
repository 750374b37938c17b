// /device: where `attest login --device` sends people. The code the terminal shows is typed (or arrives in the
// link); the page shows which machine asks, from which address and when, so a code someone else sent cannot
// pass for one's own, and only a click confirms or refuses it.
import { useState, type FormEvent } from 'react';
import { createRoute, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { shellRoute } from '../shell/route';
import { ApiClientError, api, unwrap } from '../../api/client';
import { currentSessionQuery } from '../../api/session';
import { formatTime } from '../../ui/format';

export const deviceRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'device',
  validateSearch: (s: Record<string, unknown>): { code?: string } =>
    typeof s.code === 'string' && /^[A-Za-z -]{1,20}$/.test(s.code) ? { code: s.code } : {},
  component: DevicePage,
});

const messageOf = (err: unknown) => (err instanceof ApiClientError ? err.message : 'The gateway did not answer.');

function DevicePage() {
  const { code } = deviceRoute.useSearch();
  return (
    <div className="narrow">
      <div className="card" data-testid="device">
        <h1>Sign in a terminal</h1>
        {code ? <Confirm code={code} /> : <EnterCode />}
      </div>
    </div>
  );
}

function EnterCode() {
  const [value, setValue] = useState('');
  const navigate = useNavigate();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void navigate({ to: '/device', search: { code: value.trim() } });
  };
  return (
    <form onSubmit={submit} className="filters">
      <label>
        The code <code>attest login --device</code> shows
        <input
          name="code"
          aria-label="Code"
          placeholder="XXXX-XXXX"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </label>
      <button className="primary" type="submit" disabled={value.trim() === ''}>
        Continue
      </button>
    </form>
  );
}

function Confirm({ code }: { code: string }) {
  const { data: session } = useSuspenseQuery(currentSessionQuery);
  const request = useQuery({
    queryKey: ['device-request', code],
    queryFn: async () =>
      (await unwrap(api.GET('/v1/cli-login/device/{userCode}', { params: { path: { userCode: code } } }))).data,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const decide = useMutation({
    mutationFn: async (approve: boolean) => {
      const path = approve ? '/v1/cli-login/device/{userCode}/approve' : '/v1/cli-login/device/{userCode}/deny';
      // 204: no body to unwrap; a refusal throws from the client's middleware.
      await api.POST(path, { params: { path: { userCode: code } } });
      return approve;
    },
  });
  if (request.isPending) return <p className="muted">Looking up the code…</p>;
  if (request.isError)
    return (
      <p className="notice" role="alert" data-testid="device-error">
        {messageOf(request.error)} Check the code in your terminal, or run <code>attest login --device</code> again.
      </p>
    );
  if (decide.isSuccess)
    return (
      <p role="status" data-testid="device-done">
        {decide.data
          ? 'Done: the terminal is signed in as you. You can close this tab.'
          : 'Refused: the terminal was not signed in.'}
      </p>
    );
  const r = request.data;
  return (
    <>
      <p>
        <b data-testid="device-client">{r.clientName}</b> asks to sign in as <b>{session?.user.email}</b>
        {' with the code '}
        <code data-testid="device-code">{r.userCode}</code>.
      </p>
      <table className="grid">
        <tbody>
          <tr>
            <th>Asked from</th>
            <td className="mono" data-testid="device-ip">
              {r.requestedIp}
            </td>
          </tr>
          <tr>
            <th>Asked at</th>
            <td>{formatTime(r.requestedAt)}</td>
          </tr>
          <tr>
            <th>Code expires</th>
            <td>{formatTime(r.expiresAt)}</td>
          </tr>
        </tbody>
      </table>
      <p className="notice">
        Confirm only a code your own terminal shows right now. Someone who sent you a code and a link is asking for
        access to your account: refuse it.
      </p>
      <div className="filters">
        <button className="primary" type="button" disabled={decide.isPending} onClick={() => decide.mutate(true)}>
          Sign in the terminal
        </button>
        <button type="button" disabled={decide.isPending} onClick={() => decide.mutate(false)}>
          Refuse
        </button>
      </div>
      {decide.isError && (
        <p className="error-text" role="alert">
          {messageOf(decide.error)}
        </p>
      )}
    </>
  );
}
