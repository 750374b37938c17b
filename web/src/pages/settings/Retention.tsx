// The factory's retention (issue 42): how many days a session keeps its full detail, its redacted detail, and
// itself, and how many an artifact is kept; saved with PATCH /v1/apps/{appId} { retention } (owners: changing it
// needs sessions.delete). An empty field keeps for ever. Without the permission the same values show as text.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FieldError, FormError, NO_ERRORS, fieldId, fieldProps, formErrorsOf, type FormErrors } from './fields';
import { factorySettingsQuery, updateFactory, type Factory } from './query';

type Retention = Factory['retention'];
type Key = keyof Retention;

const ROWS: readonly { key: Key; label: string; help: string }[] = [
  { key: 'fullDays', label: 'Full detail', help: 'then text, tool input and output, titles and images go (redacted)' },
  { key: 'redactedDays', label: 'Redacted detail', help: 'then files, branches and repositories go (metrics only)' },
  { key: 'sessionsDays', label: 'Sessions', help: 'then the session is deleted' },
  { key: 'artifactsDays', label: 'Artifacts', help: 'then the artifact and its bytes are deleted' },
];
const FIELDS = ROWS.map((r) => `retention.${r.key}`);

const daysText = (d: number | null) => (d === null ? 'kept for ever' : `${d} days`);

export function RetentionSection({ appId, canWrite }: { appId: string; canWrite: boolean }) {
  const { data: app } = useSuspenseQuery(factorySettingsQuery(appId));
  return (
    <section className="settings-section" aria-labelledby="retention-title" data-testid="retention">
      <h2 id="retention-title">Retention</h2>
      <p className="muted">
        Days from a session's start (an artifact's arrival). Metrics and costs stay exact while detail fades.
      </p>
      {canWrite ? (
        <RetentionForm key={app.updated_at} app={app} />
      ) : (
        <>
          <dl className="facts" data-testid="retention-read-only">
            {ROWS.map((r) => (
              <div key={r.key}>
                <dt>{r.label}</dt>
                <dd>{daysText(app.retention[r.key])}</dd>
              </div>
            ))}
          </dl>
          <p className="muted">
            Read only: changing the retention needs <code>sessions.delete</code> (owners).
          </p>
        </>
      )}
    </section>
  );
}

function RetentionForm({ app }: { app: Factory }) {
  const qc = useQueryClient();
  const text = (d: number | null) => (d === null ? '' : String(d));
  const [values, setValues] = useState<Record<Key, string>>({
    fullDays: text(app.retention.fullDays),
    redactedDays: text(app.retention.redactedDays),
    sessionsDays: text(app.retention.sessionsDays),
    artifactsDays: text(app.retention.artifactsDays),
  });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saved, setSaved] = useState(false);
  const change: Partial<Record<Key, number | null>> = {};
  for (const r of ROWS) {
    const v = values[r.key].trim();
    const next = v === '' ? null : Number(v);
    if (next !== app.retention[r.key]) change[r.key] = next;
  }
  const dirty = Object.keys(change).length > 0;
  const save = useMutation({
    mutationFn: () => updateFactory(app.id, { retention: change }),
    onSuccess: (updated) => {
      setSaved(true);
      qc.setQueryData(factorySettingsQuery(app.id).queryKey, updated);
    },
    onError: (err) => setErrors(formErrorsOf(err, FIELDS, {})),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="settings-form" onSubmit={onSubmit} noValidate data-testid="retention-form">
      {ROWS.map((r) => (
        <div className="field" key={r.key}>
          <label htmlFor={fieldId('retention', `retention.${r.key}`)}>{r.label} (days)</label>
          <input
            inputMode="numeric"
            value={values[r.key]}
            placeholder="keep"
            onChange={(e) => setValues({ ...values, [r.key]: e.target.value })}
            {...fieldProps('retention', `retention.${r.key}`, errors)}
          />
          <span className="muted small">{r.help}</span>
          <FieldError form="retention" field={`retention.${r.key}`} errors={errors} />
        </div>
      ))}
      <FormError form="retention" errors={errors} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={!dirty || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        {saved && !dirty && (
          <span className="ok-text" role="status" data-testid="retention-saved">
            Saved
          </span>
        )}
      </div>
    </form>
  );
}
