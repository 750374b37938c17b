// The factory itself: name, display name and how its runners update, saved with PATCH /v1/apps/{appId}
// (only the fields that changed). Without apps.write the same values show as text.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { factoriesQuery } from '../../api/queries';
import { FieldError, FormError, NO_ERRORS, fieldId, fieldProps, formErrorsOf, type FormErrors } from './fields';
import { factorySettingsQuery, updateFactory, type Factory, type UpdateFactoryBody } from './query';

const FIELDS = ['name', 'display_name', 'runner_updates.mode', 'runner_updates.version'] as const;
const BY_CODE = { duplicate_app_name: 'name' } as const;

type Mode = Factory['runner_updates']['mode'];

function runnerUpdatesText(r: Factory['runner_updates']): string {
  return r.mode === 'pin' ? `pinned to ${r.version}` : `follow the gateway (now ${r.version})`;
}

export function FactorySection({ appId, canWrite, role }: { appId: string; canWrite: boolean; role: string | null }) {
  const { data: app } = useSuspenseQuery(factorySettingsQuery(appId));
  // The version of the factory this page saved last: "Saved" shows while the form still holds it.
  const [savedAt, setSavedAt] = useState<string | null>(null);
  return (
    <section className="settings-section" aria-labelledby="factory-title" data-testid="factory">
      <h2 id="factory-title">Factory</h2>
      {canWrite ? (
        // A new version of the factory (saved here or read again) starts the form over from it.
        <FactoryForm key={app.updated_at} app={app} saved={savedAt === app.updated_at} onSaved={setSavedAt} />
      ) : (
        <>
          <dl className="facts" data-testid="factory-read-only">
            <div>
              <dt>Name</dt>
              <dd className="mono">{app.name}</dd>
            </div>
            <div>
              <dt>Display name</dt>
              <dd>{app.display_name}</dd>
            </div>
            <div>
              <dt>Runner updates</dt>
              <dd>{runnerUpdatesText(app.runner_updates)}</dd>
            </div>
          </dl>
          <p className="muted">
            Read only: changing the factory needs <code>apps.write</code>, which your role ({role ?? 'none'}) does not
            have.
          </p>
        </>
      )}
    </section>
  );
}

function FactoryForm({ app, saved, onSaved }: { app: Factory; saved: boolean; onSaved: (updatedAt: string) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(app.name);
  const [displayName, setDisplayName] = useState(app.display_name);
  const [mode, setMode] = useState<Mode>(app.runner_updates.mode);
  const [version, setVersion] = useState(app.runner_updates.mode === 'pin' ? app.runner_updates.version : '');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const runnerChanged = mode !== app.runner_updates.mode || (mode === 'pin' && version !== app.runner_updates.version);
  const change: UpdateFactoryBody = {
    ...(name !== app.name ? { name } : {}),
    ...(displayName !== app.display_name ? { display_name: displayName } : {}),
    ...(runnerChanged ? { runner_updates: mode === 'pin' ? { mode, version } : { mode } } : {}),
  };
  const dirty = Object.keys(change).length > 0;

  const save = useMutation({
    mutationFn: () => updateFactory(app.id, change),
    onSuccess: async (updated) => {
      onSaved(updated.updated_at);
      qc.setQueryData(factorySettingsQuery(app.id).queryKey, updated);
      // The shell shows the factory's display name from the factory list.
      await qc.invalidateQueries({ queryKey: factoriesQuery.queryKey });
    },
    onError: (err) => setErrors(formErrorsOf(err, FIELDS, BY_CODE)),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };

  return (
    <form className="settings-form" onSubmit={onSubmit} noValidate data-testid="factory-form">
      <div className="field">
        <label htmlFor={fieldId('factory', 'name')}>Name</label>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoComplete="off"
          {...fieldProps('factory', 'name', errors)}
        />
        <span className="muted small">A slug, unique in the organization; clients may pick the factory by it.</span>
        <FieldError form="factory" field="name" errors={errors} />
      </div>
      <div className="field">
        <label htmlFor={fieldId('factory', 'display_name')}>Display name</label>
        <input
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          autoComplete="off"
          {...fieldProps('factory', 'display_name', errors)}
        />
        <FieldError form="factory" field="display_name" errors={errors} />
      </div>
      <fieldset className="field" {...fieldProps('factory', 'runner_updates.mode', errors)}>
        <legend>Runner updates</legend>
        <label className="inline">
          <input type="radio" name="runner-mode" checked={mode === 'follow'} onChange={() => setMode('follow')} />
          Follow the gateway{app.runner_updates.mode === 'follow' ? ` (now ${app.runner_updates.version})` : ''}
        </label>
        <label className="inline">
          <input type="radio" name="runner-mode" checked={mode === 'pin'} onChange={() => setMode('pin')} /> Pin a
          version
        </label>
        <FieldError form="factory" field="runner_updates.mode" errors={errors} />
      </fieldset>
      {mode === 'pin' && (
        <div className="field">
          <label htmlFor={fieldId('factory', 'runner_updates.version')}>Pinned version</label>
          <input
            value={version}
            onChange={(e) => setVersion(e.target.value)}
            placeholder="1.4.2"
            autoComplete="off"
            {...fieldProps('factory', 'runner_updates.version', errors)}
          />
          <FieldError form="factory" field="runner_updates.version" errors={errors} />
        </div>
      )}
      <FormError form="factory" errors={errors} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={!dirty || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {saved && !dirty && (
          <span className="ok-text" role="status" data-testid="factory-saved">
            Saved
          </span>
        )}
      </div>
    </form>
  );
}
