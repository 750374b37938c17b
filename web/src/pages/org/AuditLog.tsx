// The org's audit log: every filter of GET /v1/orgs/{org}/audit-log as a form control under the API's own
// name in the URL (actionType, targetType, startDate, endDate, page, pageSize), and the result of the hash
// chain check (GET .../audit-log/verify) above it.
import { useEffect, useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { formatInt } from '../../ui/format';
import { ApiClientError } from '../../api/client';
import {
  ACTION_TYPES,
  DEFAULT_PAGE_SIZE,
  PAGE_SIZES,
  TARGET_TYPES,
  auditQuery,
  verifyQuery,
  type AuditFilterKey,
  type AuditSearch,
} from './query';

/** A timestamp as the filters take it: UTC, to the second (the API's pattern, so it can be pasted back). */
function utc(iso: string): string {
  return iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
    .replace(/Z$/, ' UTC');
}

export function ChainStatus({ org }: { org: string }) {
  const verify = useQuery(verifyQuery(org));
  if (verify.isPending)
    return (
      <p className="muted" role="status">
        Checking the chain…
      </p>
    );
  if (verify.isError)
    return (
      <p className="error-text" data-testid="chain-status">
        Chain not checked: {verify.error.message}
      </p>
    );
  const v = verify.data;
  if (v.intact) {
    return (
      <p className="chain ok" data-testid="chain-status">
        Chain verified: {formatInt(v.checked)} {v.checked === 1 ? 'entry' : 'entries'}, intact
      </p>
    );
  }
  return (
    <p className="chain bad" role="alert" data-testid="chain-status">
      Chain broken at entry #{v.firstBadRow?.seq} (<span className="mono">{v.firstBadRow?.id}</span>):{' '}
      {formatInt(v.checked - 1)} {v.checked - 1 === 1 ? 'entry' : 'entries'} before it verified. Entries from #
      {v.firstBadRow?.seq} on were edited, deleted or inserted outside the gateway.
    </p>
  );
}

type Draft = Record<AuditFilterKey, string>;
const draftOf = (s: AuditSearch): Draft => ({
  actionType: s.actionType ?? '',
  targetType: s.targetType ?? '',
  startDate: s.startDate ?? '',
  endDate: s.endDate ?? '',
});

export function AuditLog({
  org,
  search,
  onSearch,
}: {
  org: string;
  search: AuditSearch;
  onSearch: (next: AuditSearch) => void;
}) {
  const audit = useQuery({ ...auditQuery(org, search), placeholderData: keepPreviousData });
  const [draft, setDraft] = useState<Draft>(() => draftOf(search));
  // Back/forward and links change the URL: the form follows it.
  useEffect(() => setDraft(draftOf(search)), [search]);

  const error = audit.error;
  const fieldError = (field: AuditFilterKey): string | null => {
    if (!(error instanceof ApiClientError)) return null;
    if (error.code === 'invalid_date_range' && (field === 'startDate' || field === 'endDate'))
      return field === 'endDate' ? error.message : null;
    const d = error.details.find((x) => x.path === field);
    return d ? `${field} ${d.message}` : null;
  };
  const fieldless =
    error && !(['startDate', 'endDate', 'actionType', 'targetType'] as const).some((f) => fieldError(f));

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next: AuditSearch = { ...(search.pageSize ? { pageSize: search.pageSize } : {}) };
    for (const [k, v] of Object.entries(draft) as [AuditFilterKey, string][]) if (v.trim() !== '') next[k] = v.trim();
    onSearch(next);
  };
  const field = (key: AuditFilterKey, label: string, input: ReactNode) => (
    <label>
      {label}
      {input}
      {fieldError(key) && (
        <span className="error-text" role="alert" data-testid={`error-${key}`}>
          {fieldError(key)}
        </span>
      )}
    </label>
  );
  const text = (key: AuditFilterKey, extra: InputHTMLAttributes<HTMLInputElement>) => (
    <input name={key} value={draft[key]} onChange={(e) => setDraft({ ...draft, [key]: e.target.value })} {...extra} />
  );

  if (error instanceof ApiClientError && error.code === 'entitlement_required') {
    // The plan lacks the audit log: say so once (the chain check would only repeat it).
    return (
      <section data-testid="audit">
        <h2>Audit log</h2>
        <p className="notice" data-testid="audit-error">
          {error.message} The gateway keeps recording entries; they show here after an upgrade.
        </p>
      </section>
    );
  }
  const data = audit.data;
  const pageSize = search.pageSize ?? DEFAULT_PAGE_SIZE;
  const page = search.page ?? 1;
  return (
    <section data-testid="audit">
      <h2>
        Audit log{' '}
        {data && !error && (
          <span className="muted" data-testid="audit-total">
            {formatInt(data.pagination.total)} {data.pagination.total === 1 ? 'entry' : 'entries'}
          </span>
        )}
      </h2>
      <ChainStatus org={org} />
      <form className="filters" onSubmit={apply} data-testid="audit-filters">
        {field(
          'actionType',
          'Action',
          text('actionType', { list: 'audit-action-types', placeholder: 'any', size: 22 }),
        )}
        {field(
          'targetType',
          'Target type',
          text('targetType', { list: 'audit-target-types', placeholder: 'any', size: 16 }),
        )}
        {field('startDate', 'From (UTC)', text('startDate', { placeholder: 'YYYY-MM-DD[THH:MM:SS]', size: 24 }))}
        {field('endDate', 'To (UTC)', text('endDate', { placeholder: 'YYYY-MM-DD[THH:MM:SS]', size: 24 }))}
        <button type="submit" className="primary">
          Apply
        </button>
        <button type="button" onClick={() => onSearch(search.pageSize ? { pageSize: search.pageSize } : {})}>
          Clear
        </button>
        <label>
          Per page
          <select
            name="pageSize"
            value={pageSize}
            onChange={(e) => onSearch({ ...search, page: undefined, pageSize: Number(e.target.value) })}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <datalist id="audit-action-types">
          {ACTION_TYPES.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <datalist id="audit-target-types">
          {TARGET_TYPES.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </form>
      {fieldless && (
        <p className="error-text" role="alert" data-testid="audit-error">
          {error.message}
        </p>
      )}
      {audit.isPending && (
        <p className="muted" role="status">
          Loading…
        </p>
      )}
      {data &&
        !error &&
        (data.data.length === 0 ? (
          <p className="empty muted" data-testid="audit-empty">
            {data.pagination.total === 0 ? 'No entry matches these filters.' : 'No entry on this page.'}
          </p>
        ) : (
          <table className="grid" data-testid="audit-table">
            <thead>
              <tr>
                <th>Time (UTC)</th>
                <th>Action</th>
                <th>Actor</th>
                <th>Target</th>
                <th>Details</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((r) => (
                <tr key={r.id} data-testid="audit-row" data-id={r.id}>
                  <td className="mono" title={r.created_at}>
                    {utc(r.created_at)}
                  </td>
                  <td className="mono" data-testid="audit-action">
                    {r.action_type}
                  </td>
                  <td>
                    <div>{r.actor_name || r.actor_label}</div>
                    <div className="muted">
                      {r.actor_type}
                      {r.actor_email ? ` · ${r.actor_email}` : ''}
                      {r.actor_type !== 'user' && r.actor_label && r.actor_name ? ` · ${r.actor_label}` : ''}
                    </div>
                  </td>
                  <td>
                    <div className="mono" data-testid="audit-target">
                      {r.target_identifier}
                    </div>
                    <div className="muted">{r.target_type}</div>
                  </td>
                  <td className="mono details">{r.details_preview === '{}' ? '' : r.details_preview}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {data && !error && data.pagination.totalPages > 1 && (
        <div className="pager" data-testid="audit-pager">
          <button
            disabled={page <= 1}
            onClick={() => onSearch({ ...search, page: page - 1 > 1 ? page - 1 : undefined })}
          >
            Previous
          </button>
          <span>
            Page {formatInt(page)} of {formatInt(data.pagination.totalPages)} ({formatInt((page - 1) * pageSize + 1)}–
            {formatInt(Math.min(data.pagination.total, page * pageSize))} of {formatInt(data.pagination.total)})
          </span>
          <button disabled={page >= data.pagination.totalPages} onClick={() => onSearch({ ...search, page: page + 1 })}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}
