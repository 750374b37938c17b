// A refused form submission, split by field: each detail of the API's error goes under the field its path
// names, and errors the API reports without a path (a duplicate name, a permission the creator lacks) go to
// the field they concern by their code. Anything else is an error of the whole form.
import { ApiClientError } from '../../api/client';

export interface FormErrors {
  /** field path → the API's message for it */
  fields: Record<string, string>;
  /** an error no field owns, shown above the form's buttons */
  form: string | null;
}

export const NO_ERRORS: FormErrors = { fields: {}, form: null };

function sentence(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * `fields` are the form's field paths (`name`, `runner_updates.version`); a detail path belongs to the
 * longest field that equals it or that it starts with (`permissions.3` → `permissions`).
 * `byCode` names the field of path-less error codes.
 */
export function formErrorsOf(
  err: unknown,
  fields: readonly string[],
  byCode: Readonly<Record<string, string>> = {},
): FormErrors {
  if (!(err instanceof ApiClientError)) return { fields: {}, form: err instanceof Error ? err.message : String(err) };
  const out: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const d of err.details) {
    const owner = fields
      .filter((f) => d.path === f || d.path.startsWith(`${f}.`))
      .sort((a, b) => b.length - a.length)[0];
    if (owner) out[owner] = out[owner] ? `${out[owner]}; ${d.message}` : sentence(d.message);
    else unplaced.push(`${d.path} ${d.message}`);
  }
  const codeField = byCode[err.code];
  if (err.details.length === 0 && codeField) out[codeField] = err.message;
  const form = Object.keys(out).length === 0 ? err.message : unplaced.length > 0 ? unplaced.join('; ') : null;
  return { fields: out, form };
}

/** The API's message under a field (DOM id `${form}-${field}-error`, tied to the input by `aria-describedby`). */
export function FieldError({ form, field, errors }: { form: string; field: string; errors: FormErrors }) {
  const message = errors.fields[field];
  if (!message) return null;
  return (
    <p className="field-error" id={`${form}-${field}-error`} data-testid={`error-${form}-${field}`} role="alert">
      {message}
    </p>
  );
}

export function FormError({ form, errors }: { form: string; errors: FormErrors }) {
  if (!errors.form) return null;
  return (
    <p className="field-error" role="alert" data-testid={`error-${form}`}>
      {errors.form}
    </p>
  );
}

/** The DOM id of a field's input (several forms share a page, so ids carry the form's name). */
export function fieldId(form: string, field: string): string {
  return `${form}-${field}`;
}

/** Props for the input of `field`: its id, and the link to its error when it has one. */
export function fieldProps(
  form: string,
  field: string,
  errors: FormErrors,
): { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string } {
  const id = fieldId(form, field);
  return errors.fields[field] ? { id, 'aria-invalid': true, 'aria-describedby': `${id}-error` } : { id };
}
