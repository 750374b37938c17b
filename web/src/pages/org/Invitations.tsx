// Joining without the operator (owners and admins): invitation links (made, listed, revoked) and auto-join by
// verified email domain. A new link is shown once, right after it is made; the list never carries it.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { ApiClientError } from '../../api/client';
import { formatTime } from '../../ui/format';
import { RevokeTable } from '../../ui/revoke-table';
import {
  ROLES,
  createInvitation,
  invitationsQuery,
  orgQuery,
  revokeInvitation,
  setAutoJoin,
  type AutoJoin,
  type Role,
} from './query';

const messageOf = (err: unknown) =>
  err instanceof ApiClientError ? err.message : err instanceof Error ? err.message : String(err);

export function Invitations({ org }: { org: string }) {
  const { data: invitations } = useSuspenseQuery(invitationsQuery(org));
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: ['org', org.toLowerCase()] });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('write');
  const [link, setLink] = useState<string | null>(null);
  const make = useMutation({
    mutationFn: () => createInvitation(org, email.trim(), role),
    onMutate: () => setLink(null),
    onSuccess: async (made) => {
      setEmail('');
      setLink(made.url);
      await refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    make.mutate();
  };
  return (
    <section data-testid="invitations">
      <h2>
        Invitations <span className="muted">{invitations.length}</span>
      </h2>
      <p className="muted">
        A link joins the organization once, within 7 days, after its holder signs in. With an email, only that verified
        address can use it.
      </p>
      <form className="filters" onSubmit={submit} data-testid="invite-form">
        <label>
          Email (optional)
          <input
            name="email"
            type="email"
            placeholder="anyone with the link"
            size={30}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Role
          <select name="role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={make.isPending}>
          Create link
        </button>
        {make.isError && (
          <span className="error-text" role="alert">
            {messageOf(make.error)}
          </span>
        )}
      </form>
      {link && (
        <p role="status">
          Send this link; it is shown only now: <code data-testid="invite-url">{link}</code>
        </p>
      )}
      {invitations.length > 0 && (
        <RevokeTable
          rows={invitations}
          testId="invitations-table"
          maxWidth={980}
          rowKey={(i) => i.id}
          rowProps={(i) => ({ 'data-testid': 'invitation-row', 'data-id': i.id })}
          columns={[
            { header: 'For', className: 'mono', cell: (i) => i.email ?? 'anyone with the link' },
            { header: 'Role', cell: (i) => i.role },
            { header: 'Expires', cell: (i) => formatTime(i.expiresAt) },
          ]}
          confirm={{
            title: () => 'Revoke this invitation?',
            label: 'Revoke',
            body: (i) => (
              <p>
                The link for <b>{i.email ?? 'anyone with the link'}</b> ({i.role}) stops working at once; nobody joins
                with it any more.
              </p>
            ),
          }}
          revoke={(i) => revokeInvitation(org, i.id)}
          onRevoked={refresh}
        />
      )}
      <AutoJoinForm org={org} />
    </section>
  );
}

function AutoJoinForm({ org }: { org: string }) {
  const { data: info } = useSuspenseQuery(orgQuery(org));
  const qc = useQueryClient();
  const [domains, setDomains] = useState(info.autoJoin?.domains.join(', ') ?? '');
  const [role, setRole] = useState<AutoJoin['role']>(info.autoJoin?.role ?? 'read');
  const save = useMutation({
    mutationFn: (value: AutoJoin | null) => setAutoJoin(org, value),
    onSuccess: (saved) => {
      qc.setQueryData(orgQuery(org).queryKey, saved);
      setDomains(saved.autoJoin?.domains.join(', ') ?? '');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const list = domains
      .split(/[\s,]+/)
      .map((d) => d.trim())
      .filter((d) => d !== '');
    save.mutate(list.length === 0 ? null : { domains: list, role });
  };
  return (
    <form className="filters" onSubmit={submit} data-testid="auto-join">
      <label>
        Auto-join: verified emails at
        <input
          name="domains"
          placeholder="example.com, eu.example.com"
          size={30}
          value={domains}
          onChange={(e) => setDomains(e.target.value)}
        />
      </label>
      <label>
        join as
        <select name="autoJoinRole" value={role} onChange={(e) => setRole(e.target.value as AutoJoin['role'])}>
          <option value="read">read</option>
          <option value="write">write</option>
        </select>
      </label>
      <button type="submit" disabled={save.isPending}>
        Save
      </button>
      <span className="muted" data-testid="auto-join-state">
        {info.autoJoin ? `On: ${info.autoJoin.domains.join(', ')} as ${info.autoJoin.role}` : 'Off'}
      </span>
      {save.isError && (
        <span className="error-text" role="alert">
          {messageOf(save.error)}
        </span>
      )}
    </form>
  );
}
