// A modal "are you sure" for a destructive or access-changing action: the native <dialog> (focus trap,
// Escape to cancel, inert page behind) with nothing to install.
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmRequest {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  /** Cancel, Escape: undo whatever the dialog was asked about (e.g. put a select back). */
  onCancel?: () => void;
}

export function ConfirmDialog({ request, onClose }: { request: ConfirmRequest | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const finish = (confirmed: boolean) => {
    const r = request;
    onClose();
    if (r) (confirmed ? r.onConfirm : r.onCancel)?.();
  };
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (request && !dialog.open) dialog.showModal();
    if (!request && dialog.open) dialog.close();
  }, [request]);
  return (
    // Escape closes the native dialog: that is a cancel, and React's state follows it.
    <dialog ref={ref} className="confirm" aria-labelledby={titleId} onClose={() => { if (request) finish(false); }} data-testid="confirm-dialog">
      {request && (
        <>
          <h2 id={titleId}>{request.title}</h2>
          <div>{request.body}</div>
          <div className="actions">
            <button type="button" onClick={() => finish(false)}>Cancel</button>
            <button type="button" className="primary danger" onClick={() => finish(true)}>{request.confirmLabel}</button>
          </div>
        </>
      )}
    </dialog>
  );
}
