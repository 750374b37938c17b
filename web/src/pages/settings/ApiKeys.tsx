// The factory's API keys: the live list, a create form (a preset or an explicit permission list) whose
// plaintext answer is shown once and kept nowhere but this component's state, and revoke behind a
// confirmation. Controls appear only for a caller holding api_keys.write; the API refuses the rest anyway.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { RevokeTable } from '../../ui/revoke-table';
import { formatTime } from '../../ui/format';
import { FieldError, FormError, NO_ERRORS, fieldId, fieldProps, formErrorsOf, type FormErrors } from './fields';
import {
  apiKeysQuery,
  createKey,
  revokeKey,
  type ApiKey,
  type CreatedKey,
  type KeyPreset,
  type Permission,
} from './query';

/** Every permission of API.md §3, in its documented order; `satisfies` keeps this list complete as the API's grows. */
const PERMISSION_HELP = {
  'apps.read': 'read factories',
  'apps.write': 'create, rename and configure factories',
  'api_keys.read': 'list API keys',
  'api_keys.write': 'create and revoke API keys',
  'sessions.read': 'read own sessions',
  'sessions.read_team': "read everyone's sessions and filter by actor",
  'sessions.write': 'send sessions (sync)',
  'sessions.delete': 'delete sessions (owners only)',
  'artifacts.read': 'read evidence',
  'artifacts.write': 'upload evidence',
  'artifacts.delete': 'delete evidence (owners only)',
  'results.read': 'read CI results',
  'results.write': 'emit CI results',
  'work.read': 'read work items',
  'work.write': 'create, claim and update work items',
  'criteria.write': 'set acceptance criteria',
  'findings.read': 'read findings',
  'findings.write': 'report findings',
  'repositories.read': 'list connected repositories',
  'repositories.write': 'connect and disconnect repositories',
  'hosts.read': 'read hosts',
  'hosts.write': 'register hosts and heartbeats',
  'metrics.read': 'read metrics',
  'context.read': 'read shared context',
  'context.write': 'write shared context',
  'prs.read': 'read pull requests and outcomes',
  'members.read': 'read organization members',
  'members.write': 'manage organization members',
  'audit.read': 'read the audit log',
  'people.erase': 'erase a person from the organization',
  'budgets.read': 'read budgets and their spend',
  'budgets.write': 'create, change and delete budgets',
  'notifications.read': 'read notification channels and their deliveries',
  'notifications.write': 'create, change and test notification channels',
} as const satisfies Record<Permission, string>;
const PERMISSIONS = Object.keys(PERMISSION_HELP) as Permission[];

const PRESETS: ReadonlyArray<{ value: KeyPreset; label: string }> = [
  { value: 'ingest', label: 'ingest: send sessions, evidence, CI results and host heartbeats' },
  { value: 'read-only', label: 'read-only: every read a write member has' },
  { value: 'full-access', label: 'full-access: every permission you have' },
];

const FIELDS = ['name', 'preset', 'permissions'] as const;
// Errors the API states without a field path, placed by code under the field they concern. A 403 stays an
// error of the whole form: it may be about the caller (a role changed meanwhile), not about the list.
const BY_CODE = { duplicate_api_key_name: 'name', invalid_permissions: 'permissions' } as const;

export function ApiKeysSection({
  appId,
  canRead,
  canWrite,
  role,
  callerPermissions,
}: {
  appId: string;
  canRead: boolean;
  canWrite: boolean;
  role: string | null;
  callerPermissions: ReadonlySet<string>;
}) {
  const [created, setCreated] = useState<CreatedKey | null>(null);
  return (
    <section className="settings-section" aria-labelledby="api-keys-title" data-testid="api-keys">
      <h2 id="api-keys-title">API keys</h2>
      {!canRead ? (
        <p className="muted" data-testid="api-keys-hidden">
          Your role ({role ?? 'none'}) cannot see this factory's API keys (it needs <code>api_keys.read</code>).
        </p>
      ) : (
        <>
          {created && <NewKey created={created} onDone={() => setCreated(null)} />}
          <KeyList appId={appId} canWrite={canWrite} />
          {canWrite ? (
            <CreateKeyForm appId={appId} callerPermissions={callerPermissions} onCreated={setCreated} />
          ) : (
            <p className="muted" data-testid="api-keys-read-only">
              Read only: creating and revoking keys needs <code>api_keys.write</code>, which your role ({role ?? 'none'}
              ) does not have.
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** The plaintext, once. It lives in the parent's state only: a reload, or Done, and it is gone for good. */
function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(created.plaintext_key);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <div className="new-key" data-testid="new-key" role="status">
      <p>
        <strong>Key “{created.name}” created.</strong> Copy it now: <strong>you will not see it again.</strong> The
        gateway keeps only a digest of it.
      </p>
      <div className="new-key-value">
        <code data-testid="new-key-plaintext">{created.plaintext_key}</code>
        <button type="button" onClick={() => void onCopy()}>
          Copy
        </button>
        {copy === 'copied' && (
          <span className="ok-text" data-testid="copied">
            Copied
          </span>
        )}
        {copy === 'failed' && (
          <span className="error-text">The browser refused the clipboard: select the key and copy it by hand.</span>
        )}
      </div>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

function KeyList({ appId, canWrite }: { appId: string; canWrite: boolean }) {
  const keys = useQuery(apiKeysQuery(appId));
  const qc = useQueryClient();
  if (keys.isPending)
    return (
      <p className="muted" role="status">
        Loading keys…
      </p>
    );
  if (keys.isError)
    return (
      <p className="error-text" role="alert">
        {keys.error.message}
      </p>
    );
  if (keys.data.length === 0)
    return (
      <p className="muted" data-testid="api-keys-empty">
        No live API key in this factory.
      </p>
    );
  return (
    <RevokeTable
      rows={keys.data}
      testId="api-keys-table"
      canRevoke={canWrite}
      rowKey={(k) => k.id}
      rowProps={(k) => ({ 'data-key-id': k.id })}
      columns={[
        { header: 'Name', cell: (k) => k.name },
        { header: 'Key', className: 'mono', cell: (k) => `${k.key_prefix}…` },
        { header: 'Permissions', cell: (k) => <PermissionList permissions={k.permissions} /> },
        { header: 'Created', cell: (k) => formatTime(k.created_at) },
        { header: 'Expires', cell: (k) => (k.expires_at ? formatTime(k.expires_at) : 'never') },
      ]}
      confirm={{
        title: (k: ApiKey) => `Revoke the key “${k.name}”?`,
        label: 'Revoke key',
        body: (k) => (
          <p>
            Anything using <code>{k.key_prefix}…</code> is refused (401) from the next request on. This cannot be
            undone.
          </p>
        ),
      }}
      revoke={(k) => revokeKey(appId, k.id)}
      onRevoked={() => qc.invalidateQueries({ queryKey: apiKeysQuery(appId).queryKey })}
    />
  );
}

function PermissionList({ permissions }: { permissions: readonly string[] }) {
  return (
    <details>
      <summary>
        {permissions.length} permission{permissions.length === 1 ? '' : 's'}
      </summary>
      {permissions.map((p) => (
        <span className="chip" key={p}>
          {p}
        </span>
      ))}
    </details>
  );
}

function CreateKeyForm({
  appId,
  callerPermissions,
  onCreated,
}: {
  appId: string;
  callerPermissions: ReadonlySet<string>;
  onCreated: (k: CreatedKey) => void;
}) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'preset' | 'permissions'>('preset');
  const [preset, setPreset] = useState<KeyPreset>('ingest');
  const [chosen, setChosen] = useState<ReadonlySet<Permission>>(new Set());
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  // Not a useMutation: its cache would keep the answer (and so the plaintext) after the box is dismissed.
  const [pending, setPending] = useState(false);
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setPending(true);
    try {
      const key = await createKey(
        appId,
        mode === 'preset' ? { name, preset } : { name, permissions: PERMISSIONS.filter((p) => chosen.has(p)) },
      );
      setErrors(NO_ERRORS);
      setName('');
      setChosen(new Set());
      onCreated(key);
      await qc.invalidateQueries({ queryKey: apiKeysQuery(appId).queryKey });
    } catch (err) {
      setErrors(formErrorsOf(err, FIELDS, BY_CODE));
    } finally {
      setPending(false);
    }
  };
  const toggle = (p: Permission) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (next.has(p)) next.delete(p);
      else next.add(p);
      return next;
    });
  return (
    <form
      className="settings-form"
      onSubmit={(e) => void onSubmit(e)}
      noValidate
      data-testid="create-key-form"
      aria-labelledby="create-key-title"
    >
      <h3 id="create-key-title">Create a key</h3>
      <div className="field">
        <label htmlFor={fieldId('key', 'name')}>Name</label>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoComplete="off"
          {...fieldProps('key', 'name', errors)}
        />
        <FieldError form="key" field="name" errors={errors} />
      </div>
      <fieldset className="field">
        <legend>Grants</legend>
        <label className="inline">
          <input type="radio" name="grant-mode" checked={mode === 'preset'} onChange={() => setMode('preset')} /> A
          preset
        </label>
        <label className="inline">
          <input
            type="radio"
            name="grant-mode"
            checked={mode === 'permissions'}
            onChange={() => setMode('permissions')}
          />{' '}
          Choose permissions
        </label>
      </fieldset>
      {mode === 'preset' ? (
        <div className="field">
          <label htmlFor={fieldId('key', 'preset')}>Preset</label>
          <select
            value={preset}
            onChange={(e) => setPreset(e.target.value as KeyPreset)}
            {...fieldProps('key', 'preset', errors)}
          >
            {PRESETS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <FieldError form="key" field="preset" errors={errors} />
        </div>
      ) : (
        <fieldset className="field" {...fieldProps('key', 'permissions', errors)}>
          <legend>Permissions</legend>
          <div className="permission-grid">
            {PERMISSIONS.map((p) => (
              <label
                key={p}
                className="inline"
                title={
                  callerPermissions.has(p)
                    ? undefined
                    : 'You do not have this permission, so a key you create cannot either.'
                }
              >
                <input
                  type="checkbox"
                  checked={chosen.has(p)}
                  onChange={() => toggle(p)}
                  disabled={!callerPermissions.has(p)}
                />
                <code>{p}</code> <span className="muted">{PERMISSION_HELP[p]}</span>
              </label>
            ))}
          </div>
          <FieldError form="key" field="permissions" errors={errors} />
        </fieldset>
      )}
      <FormError form="key" errors={errors} />
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}
