/**
 * Small building blocks every page uses, so pages look and behave alike: times with their UTC
 * instant, labelled fields with their API errors, a group of checkboxes, a filter's choice, empty states, the pager,
 * errors, a confirm dialog.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ApiError } from '../api/client.ts';
import { formatInteger, formatTime, utcTitle } from '../format.ts';

/** An instant in the browser's zone; hover (title) shows it in UTC. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span>–</span>;
  return (
    <time dateTime={value} title={utcTitle(value)}>
      {formatTime(value)}
    </time>
  );
}

/**
 * Checkboxes choosing several of `options` ([value, label]), under a legend: `chosen` are the
 * ticked values. `errors` are the API's messages for the list, shown under it; `children` go
 * under the hint (e.g. "none yet").
 */
export function CheckboxGroup<T extends string | number>({
  legend,
  hint,
  name,
  options,
  chosen,
  onChange,
  errors,
  children,
}: {
  legend: string;
  hint?: string;
  name?: string;
  options: readonly (readonly [T, string])[];
  chosen: readonly T[];
  onChange: (chosen: T[]) => void;
  errors?: string[];
  children?: ReactNode;
}) {
  return (
    <fieldset className={`checklist${errors?.length ? ' field-invalid' : ''}`}>
      <legend>{legend}</legend>
      {hint && <small className="hint">{hint}</small>}
      {children}
      {options.map(([value, label]) => (
        <label key={value} className="check">
          <input
            type="checkbox"
            name={name}
            checked={chosen.includes(value)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, value] : chosen.filter((c) => c !== value))}
          />
          {label}
        </label>
      ))}
      {errors?.length ? <p className="field-error">{errors.join(' ')}</p> : null}
    </fieldset>
  );
}

/**
 * A labelled field. `errors` are the API's messages for it (ApiError.fields[name]); they are
 * tied to the input by aria-describedby and shown under it.
 */
export function Field({
  label,
  hint,
  errors,
  children,
}: {
  label: string;
  hint?: string;
  errors?: string[];
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ReactNode;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : '', errors?.length ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${errors?.length ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': errors?.length ? true : undefined })}
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {errors?.length ? (
        <p id={`${id}-err`} className="field-error">
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

/** A list's filter: a labelled choice of one of `options` ([value, label]), or "Any" (the empty value). */
export function AnyOf({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly (readonly [string | number, string])[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label}>
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">Any</option>
          {options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** What a page shows when it has nothing yet: what this is, and what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="empty" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** An error for the whole request or page (not a field's). */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? (error.detail ?? error.message) : error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="error-banner">
      {text}
    </p>
  );
}

/** "Loading…" for a region that waits on the API. */
export function Loading({ what = 'Loading…' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}
    </p>
  );
}

/** Previous/next over a list's pages; the API's page numbers are 1-based. */
export function Pager({
  page,
  count,
  pageSize,
  hasNext,
  onPage,
}: {
  page: number;
  /** Rows in all; a list without a count (a bare array) gives `hasNext` instead. */
  count?: number;
  pageSize: number;
  hasNext?: boolean;
  onPage: (p: number) => void;
}) {
  const pages = count === undefined ? undefined : Math.max(1, Math.ceil(count / pageSize));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>{pages === undefined ? <>Page {formatInteger(page)}</> : <>Page {formatInteger(page)} of {formatInteger(pages)} ({formatInteger(count)} in all)</>}</span>
      <button type="button" disabled={pages === undefined ? !hasNext : page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A modal question (the native <dialog>: focus trapped, Escape cancels). */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  const titleId = useId();
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={onCancel} className="confirm">
      <h2 id={titleId}>{title}</h2>
      {children}
      <div className="actions">
        <button type="button" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
