// A modal confirmation for destructive actions (the native <dialog>: focus kept inside, Escape cancels).
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, busy = false, error = null, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="confirm"
      aria-labelledby={titleId}
      // Escape: the browser would close the dialog on its own; let the owner's state decide instead.
      onCancel={(e) => { e.preventDefault(); if (!busy) onCancel(); }}
    >
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          <div>{children}</div>
          {error && <p className="field-error" role="alert">{error}</p>}
          <div className="actions">
            <button type="button" onClick={onCancel} disabled={busy} autoFocus>Cancel</button>
            <button type="button" className="danger" onClick={onConfirm} disabled={busy}>{busy ? 'Working…' : confirmLabel}</button>
          </div>
        </>
      )}
    </dialog>
  );
}
