// A modal "are you sure" for a destructive or access-changing action: the native <dialog> (focus kept inside,
// inert page behind) with nothing to install. The owner holds whether it is open; Escape and Cancel both ask
// the owner to close it (onCancel), so what the dialog was about can be undone in one place.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The confirmed action is running: both buttons are disabled, Escape does nothing. */
  busy?: boolean;
  /** Why the confirmed action failed, shown in the dialog (for an owner that keeps it open until it succeeds). */
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy = false,
  error = null,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
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
      data-testid="confirm-dialog"
      // Escape: the browser would close the dialog on its own; let the owner's state decide instead.
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
      // The browser may close it anyway (a second Escape with no click between): the owner's state follows.
      onClose={() => {
        if (open) onCancel();
      }}
    >
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          <div>{children}</div>
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="button" onClick={onCancel} disabled={busy} autoFocus>
              Cancel
            </button>
            <button type="button" className="primary danger" onClick={onConfirm} disabled={busy}>
              {busy ? 'Working…' : confirmLabel}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
