// A table of credentials or links, each row with a Revoke button that asks first (ConfirmDialog). The dialog
// stays open with the API's reason when the revocation fails; after it succeeds the owner refreshes its list.
import { useState, type Key, type ReactNode } from 'react';
import { ConfirmDialog } from './confirm';

export interface RevokeColumn<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  className?: string;
  testId?: string;
}

export interface RevokeTableProps<T> {
  rows: readonly T[];
  columns: readonly RevokeColumn<T>[];
  rowKey: (row: T) => Key;
  /** Attributes a test finds a row by (`data-testid`, `data-id`, …). */
  rowProps?: (row: T) => Record<`data-${string}`, string>;
  testId: string;
  maxWidth?: number;
  /** False: no Revoke column at all (a caller without the permission). */
  canRevoke?: boolean;
  confirm: { title: (row: T) => string; label: string; body: (row: T) => ReactNode };
  revoke: (row: T) => Promise<unknown>;
  /** After a revocation succeeded and the dialog closed. */
  onRevoked: (row: T) => Promise<unknown>;
}

export function RevokeTable<T>(props: RevokeTableProps<T>) {
  const { rows, columns, rowKey, rowProps, testId, maxWidth, canRevoke = true, confirm, revoke, onRevoked } = props;
  const [revoking, setRevoking] = useState<T | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ask = (row: T) => {
    setError(null);
    setRevoking(row);
  };
  const run = async (row: T) => {
    setBusy(true);
    setError(null);
    try {
      await revoke(row);
      setRevoking(null);
      await onRevoked(row);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <table className="grid" data-testid={testId} style={maxWidth ? { maxWidth } : undefined}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i}>{c.header}</th>
            ))}
            {canRevoke && <th />}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowProps?.(row)}>
              {columns.map((c, i) => (
                <td key={i} className={c.className} data-testid={c.testId}>
                  {c.cell(row)}
                </td>
              ))}
              {canRevoke && (
                <td>
                  <button type="button" className="danger" onClick={() => ask(row)}>
                    Revoke
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        open={revoking !== null}
        title={revoking === null ? '' : confirm.title(revoking)}
        confirmLabel={confirm.label}
        busy={busy}
        error={error}
        onConfirm={() => revoking !== null && void run(revoking)}
        onCancel={() => setRevoking(null)}
      >
        {revoking !== null && confirm.body(revoking)}
      </ConfirmDialog>
    </>
  );
}
