// "Delete" with a confirm, for a session or an artifact page (issue 42). Shown only to a user whose role in the
// factory holds the permission (GET /v1/me/factories says which); the API refuses everyone else anyway.
import { useState } from 'react';
import { useSuspenseQuery } from '@tanstack/react-query';
import { ApiClientError } from '../api/client';
import { factoriesQuery } from '../api/queries';
import { ConfirmDialog } from './confirm';

export interface DeleteButtonProps {
  appId: string;
  permission: 'sessions.delete' | 'artifacts.delete';
  /** What goes, for the dialog's title ("Delete session"). */
  what: string;
  /** The dialog's text: what the deletion reaches. */
  body: React.ReactNode;
  run: () => Promise<unknown>;
  /** After the deletion: where to go. */
  done: () => Promise<unknown>;
}

export function DeleteButton({ appId, permission, what, body, run, done }: DeleteButtonProps) {
  const { data: factories } = useSuspenseQuery(factoriesQuery);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const allowed = factories.find((f) => f.id === appId)?.permissions.includes(permission) ?? false;
  if (!allowed) return null;
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
      setOpen(false);
      await done();
    } catch (err) {
      setError(err instanceof ApiClientError || err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="danger" data-testid="delete-button" onClick={() => setOpen(true)}>
        Delete {what}
      </button>
      <ConfirmDialog
        open={open}
        title={`Delete ${what}`}
        confirmLabel={`Delete ${what}`}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onCancel={() => {
          setOpen(false);
          setError(null);
        }}
      >
        {body}
      </ConfirmDialog>
    </>
  );
}
