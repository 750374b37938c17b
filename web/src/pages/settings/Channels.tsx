// Notification channels (webhooks, Slack): GET/POST/DELETE /v1/notification-channels and "send a test event"
// (POST …/{id}/test), whose answer is the delivery after its first attempt. A webhook's secret is shown once,
// right after creation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, factory, unwrap, type paths } from '../../api/client';
import { channelsQuery } from '../budgets/query';
import { FieldError, FormError, NO_ERRORS, fieldId, fieldProps, formErrorsOf, type FormErrors } from './fields';

type CreateBody = paths['/v1/notification-channels']['post']['requestBody']['content']['application/json'];
type Delivery =
  paths['/v1/notification-channels/{id}/test']['post']['responses'][201]['content']['application/json']['data'];
const EVENTS = [
  'budget.threshold',
  'budget.forecast',
  'pr.verdict',
  'session.failed_sync',
  'host.offline',
  'work_item.claim_expired',
] as const satisfies readonly NonNullable<CreateBody['events']>[number][];
/** A new channel takes the budget events unless its owner ticks more. */
const DEFAULT_EVENTS = ['budget.threshold', 'budget.forecast'];

export function ChannelsSection({ appId, canRead, canWrite }: { appId: string; canRead: boolean; canWrite: boolean }) {
  const qc = useQueryClient();
  const channels = useQuery({ ...channelsQuery(appId), enabled: canRead });
  const [results, setResults] = useState<Record<string, Delivery>>({});
  const test = useMutation({
    mutationFn: async (id: string) =>
      (await unwrap(api.POST('/v1/notification-channels/{id}/test', { params: { path: { id } }, ...factory(appId) })))
        .data,
    onSuccess: async (d) => {
      setResults((r) => ({ ...r, [d.channelId]: d }));
      await qc.invalidateQueries({ queryKey: channelsQuery(appId).queryKey });
    },
  });
  const remove = useMutation({
    // 204: no body to unwrap (an error answer throws in the client's middleware).
    mutationFn: async (id: string) => {
      await api.DELETE('/v1/notification-channels/{id}', { params: { path: { id } }, ...factory(appId) });
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: channelsQuery(appId).queryKey }),
  });
  if (!canRead) return null;
  return (
    <section className="settings-section" aria-labelledby="channels-title" data-testid="channels">
      <h2 id="channels-title">Notification channels</h2>
      <p className="muted">
        Webhooks (signed, X-Attest-Signature) and Slack incoming webhooks: budgets notify them, and each takes the
        events it subscribes to (a verdict change, a refused session, a host offline, an expired claim).
      </p>
      {channels.data?.length === 0 && <p className="muted">No channel yet.</p>}
      {channels.data && channels.data.length > 0 && (
        <table className="grid">
          <tbody>
            {channels.data.map((c) => (
              <tr key={c.id} data-channel={c.name}>
                <td>
                  <b>{c.name}</b> <span className="chip">{c.kind}</span>
                  <div className="muted mono small">{c.url}</div>
                </td>
                <td>
                  {c.enabled ? (
                    <span className="chip ok">enabled</span>
                  ) : (
                    <span className="chip bad" title={c.disabledReason ?? ''}>
                      disabled
                    </span>
                  )}
                  {c.disabledReason && <div className="small">{c.disabledReason}</div>}
                </td>
                <td data-testid="channel-test-result">
                  {results[c.id] &&
                    `${results[c.id]!.status}` +
                      `${results[c.id]!.responseCode !== null ? ` (HTTP ${results[c.id]!.responseCode})` : ''}` +
                      `${results[c.id]!.error ? `: ${results[c.id]!.error}` : ''}`}
                </td>
                {canWrite && (
                  <td>
                    <button type="button" onClick={() => test.mutate(c.id)} disabled={test.isPending}>
                      Send a test event
                    </button>{' '}
                    <button type="button" onClick={() => remove.mutate(c.id)}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite && <ChannelForm appId={appId} />}
    </section>
  );
}

function ChannelForm({ appId }: { appId: string }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<CreateBody['kind']>('webhook');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(DEFAULT_EVENTS);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async () =>
      (
        await unwrap(
          api.POST('/v1/notification-channels', {
            body: { name, kind, url, events: events as CreateBody['events'] },
            ...factory(appId),
          }),
        )
      ).data,
    onSuccess: async (c) => {
      setErrors(NO_ERRORS);
      setSecret(c.secret);
      setName('');
      setUrl('');
      await qc.invalidateQueries({ queryKey: channelsQuery(appId).queryKey });
    },
    onError: (err) =>
      setErrors(formErrorsOf(err, ['name', 'kind', 'url', 'events'], { notification_target_refused: 'url' })),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="settings-form" onSubmit={onSubmit} noValidate data-testid="channel-form">
      {secret && (
        <p className="notice" data-testid="channel-secret">
          Signing secret (shown once): <code>{secret}</code>
        </p>
      )}
      <div className="field">
        <label htmlFor={fieldId('channel', 'name')}>Channel name</label>
        <input value={name} onChange={(e) => setName(e.target.value)} {...fieldProps('channel', 'name', errors)} />
        <FieldError form="channel" field="name" errors={errors} />
      </div>
      <div className="field">
        <label htmlFor={fieldId('channel', 'kind')}>Kind</label>
        <select
          value={kind}
          onChange={(e) => setKind(e.target.value as CreateBody['kind'])}
          {...fieldProps('channel', 'kind', errors)}
        >
          <option value="webhook">webhook</option>
          <option value="slack">Slack incoming webhook</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={fieldId('channel', 'url')}>URL</label>
        <input value={url} onChange={(e) => setUrl(e.target.value)} {...fieldProps('channel', 'url', errors)} />
        <FieldError form="channel" field="url" errors={errors} />
      </div>
      <fieldset className="field">
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev} className="inline">
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))}
            />{' '}
            {ev}
          </label>
        ))}
      </fieldset>
      <FormError form="channel" errors={errors} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add channel
        </button>
      </div>
    </form>
  );
}
