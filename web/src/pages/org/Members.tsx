// The members of the org with their roles. With members.write: a role select + Save and a Remove button
// per member, each confirmed in a dialog; the API's refusal (e.g. last_owner) shows next to that control.
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { ApiClientError } from '../../api/client';
import { currentSessionQuery } from '../../api/session';
import { ConfirmDialog } from '../../ui/confirm';
import { formatTime } from '../../ui/format';
import { ROLES, addMember, changeRole, membersQuery, removeMember, type Member, type Role } from './query';

type Problem = { userId: string; control: 'role' | 'remove'; message: string };

/** What the confirm dialog asks about, and what confirming or cancelling it does. */
interface ConfirmRequest {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  /** Cancel, Escape: undo whatever the dialog was asked about (e.g. put a select back). */
  onCancel?: () => void;
}

const messageOf = (err: unknown) =>
  err instanceof ApiClientError ? err.message : err instanceof Error ? err.message : String(err);

export function Members({ org, canWrite }: { org: string; canWrite: boolean }) {
  const { data: members } = useSuspenseQuery(membersQuery(org));
  const { data: session } = useSuspenseQuery(currentSessionQuery);
  const [draft, setDraft] = useState<Record<string, Role>>({});
  const [problem, setProblem] = useState<Problem | null>(null);
  const [confirm, setConfirm] = useState<ConfirmRequest | null>(null);
  // The dialog closes first; then the confirmed action runs (its error shows in the member's row), or the
  // cancelled one is undone.
  const finish = (confirmed: boolean) => {
    const request = confirm;
    setConfirm(null);
    if (request) (confirmed ? request.onConfirm : request.onCancel)?.();
  };
  const qc = useQueryClient();
  const navigate = useNavigate();
  // A change to members changes the audit log, and maybe the caller's own role (and so the page).
  const refresh = () => qc.invalidateQueries({ queryKey: ['org', org.toLowerCase()] });

  const roleChange = useMutation({
    mutationFn: (v: { member: Member; role: Role }) => changeRole(org, v.member.userId, v.role),
    onMutate: () => setProblem(null),
    onSuccess: async (saved, v) => {
      // The answer is the member as saved: show it now, so the select never flips back to the old role
      // while the list reloads.
      qc.setQueryData(membersQuery(org).queryKey, (list) =>
        list?.map((m) => (m.userId === saved.userId ? { ...m, role: saved.role } : m)),
      );
      setDraft(({ [v.member.userId]: _done, ...rest }) => rest);
      await refresh();
      await qc.invalidateQueries({ queryKey: ['me', 'factories'] });
    },
    onError: (err, v) => setProblem({ userId: v.member.userId, control: 'role', message: messageOf(err) }),
  });
  const removal = useMutation({
    mutationFn: (member: Member) => removeMember(org, member.userId),
    onMutate: () => setProblem(null),
    onSuccess: async (_r, member) => {
      await qc.invalidateQueries({ queryKey: ['me', 'factories'] });
      // Having removed yourself, this org is no longer yours to look at.
      if (member.userId === session?.user.id) await navigate({ to: '/' });
      else await refresh();
    },
    onError: (err, member) => setProblem({ userId: member.userId, control: 'remove', message: messageOf(err) }),
  });

  const askRole = (member: Member, role: Role) =>
    setConfirm({
      title: 'Change role',
      body: (
        <p>
          Change the role of <b>{member.name || member.email}</b> ({member.email}) from <b>{member.role}</b> to{' '}
          <b>{role}</b>?{member.userId === session?.user.id ? ' This is your own role.' : ''}
        </p>
      ),
      confirmLabel: `Make ${role}`,
      onConfirm: () => roleChange.mutate({ member, role }),
      onCancel: () => setDraft(({ [member.userId]: _undone, ...rest }) => rest),
    });
  const askRemove = (member: Member) =>
    setConfirm({
      title: 'Remove member',
      body: (
        <p>
          Remove <b>{member.name || member.email}</b> ({member.email}) from <b>{org}</b>? Their login tokens stop
          reaching the organization's factories at once, and keys they created stop working.
        </p>
      ),
      confirmLabel: 'Remove',
      onConfirm: () => removal.mutate(member),
    });

  return (
    <section data-testid="members">
      <h2>
        Members <span className="muted">{members.length}</span>
      </h2>
      {!canWrite && (
        <p className="muted" data-testid="members-read-only">
          You need owner or admin to change roles or remove members.
        </p>
      )}
      <table className="grid" data-testid="members-table" style={{ maxWidth: 980 }}>
        <thead>
          <tr>
            <th>Name</th>
            <th>Email</th>
            <th>Role</th>
            <th>Joined</th>
            {canWrite && <th />}
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            const chosen = draft[m.userId] ?? (m.role as Role);
            const error = problem?.userId === m.userId ? problem : null;
            const busy =
              (roleChange.isPending && roleChange.variables?.member.userId === m.userId) ||
              (removal.isPending && removal.variables?.userId === m.userId);
            return (
              <tr key={m.userId} data-testid="member-row" data-email={m.email}>
                <td>
                  {m.name}
                  {m.userId === session?.user.id && <span className="muted"> (you)</span>}
                </td>
                <td className="mono">{m.email}</td>
                <td>
                  {canWrite ? (
                    <div className="inline-control">
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={chosen}
                        disabled={busy}
                        onChange={(e) => setDraft({ ...draft, [m.userId]: e.target.value as Role })}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                      <button type="button" disabled={busy || chosen === m.role} onClick={() => askRole(m, chosen)}>
                        Save
                      </button>
                      {error?.control === 'role' && (
                        <span className="error-text" role="alert" data-testid="role-error">
                          {error.message}
                        </span>
                      )}
                    </div>
                  ) : (
                    <span className="chip" data-testid="member-role">
                      {m.role}
                    </span>
                  )}
                </td>
                <td>{formatTime(m.joined_at)}</td>
                {canWrite && (
                  <td>
                    <div className="inline-control">
                      <button type="button" disabled={busy} onClick={() => askRemove(m)}>
                        Remove
                      </button>
                      {error?.control === 'remove' && (
                        <span className="error-text" role="alert" data-testid="remove-error">
                          {error.message}
                        </span>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {canWrite && <AddMember org={org} onAdded={refresh} />}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ''}
        confirmLabel={confirm?.confirmLabel ?? ''}
        onConfirm={() => finish(true)}
        onCancel={() => finish(false)}
      >
        {confirm?.body}
      </ConfirmDialog>
    </section>
  );
}

/**
 * Add an existing user by email (the operator creates users: an unknown email is the API's 404, shown next
 * to the field). Adding grants access, it takes none away, so it is not confirmed.
 */
function AddMember({ org, onAdded }: { org: string; onAdded: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('read');
  const [added, setAdded] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: () => addMember(org, email.trim(), role),
    onMutate: () => setAdded(null),
    onSuccess: async (m) => {
      setEmail('');
      setAdded(`${m.email} added as ${m.role}.`);
      await onAdded();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (email.trim() !== '') add.mutate();
  };
  return (
    <form className="filters add-member" onSubmit={submit} data-testid="add-member">
      <label>
        Add a member by email
        <input
          name="email"
          type="email"
          required
          placeholder="someone@example.com"
          size={30}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        {add.isError && (
          <span className="error-text" role="alert" data-testid="add-error">
            {messageOf(add.error)}
          </span>
        )}
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
      <button type="submit" disabled={add.isPending}>
        Add
      </button>
      {added && (
        <span className="muted" role="status" data-testid="add-done">
          {added}
        </span>
      )}
    </form>
  );
}
