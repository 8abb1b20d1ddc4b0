/**
 * What a collection's own page (a phonebook, a DNC list) and its list page share: the crumbs and
 * title with the record's buttons, the answer when the record is missing, its deletion, and the
 * small form sections (create, rename) that show the API's messages beside their fields.
 */
import type { FormEvent, ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError, del, recordPath } from '../api/client.ts';
import { ErrorMessage } from './ui.tsx';

/** The API's messages by field (ApiError.fields), or none when the error is not the API's or has none. */
export function fieldErrors(error: unknown): Record<string, string[]> {
  return error instanceof ApiError ? error.fields : {};
}

/** "Back" crumbs to the list, then the record's name as the page's heading and its buttons beside it. */
export function RecordHead({ back, title, children }: { back: { to: string; label: string }; title: string; children?: ReactNode }) {
  return (
    <>
      <p className="crumbs">
        <Link to={back.to}>{back.label}</Link> /
      </p>
      <div className="page-head">
        <h1>{title}</h1>
        {children}
      </div>
    </>
  );
}

/** A collection's buttons beside its name: Rename (off while the rename form is open), Export CSV, Delete. */
export function RenameExportDelete({ renaming, onRename, exportHref, onDelete }: { renaming: boolean; onRename: () => void; exportHref: string; onDelete: () => void }) {
  return (
    <>
      <button type="button" onClick={onRename} disabled={renaming}>
        Rename
      </button>
      <a className="button" href={exportHref} download>
        Export CSV
      </a>
      <button type="button" className="danger" onClick={onDelete}>
        Delete
      </button>
    </>
  );
}

/** A record that could not be read: crumbs to the list and why (a 404 in plain words: `notFound`). */
export function RecordMissing({ back, error, notFound }: { back: { to: string; label: string }; error: unknown; notFound: string }) {
  return (
    <>
      <p className="crumbs">
        <Link to={back.to}>{back.label}</Link>
      </p>
      <ErrorMessage error={error instanceof ApiError && error.status === 404 ? new Error(notFound) : error} />
    </>
  );
}

/** DELETE the record, refresh the queries under `invalidate`, then go to `then` (the list); `settled` runs either way. */
export function useDeleteRecord(resource: string, id: number, invalidate: string[], then: string, settled: () => void) {
  const client = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => del(recordPath(resource, id)),
    onSuccess: () => {
      for (const key of invalidate) void client.invalidateQueries({ queryKey: [key] });
      void navigate(then);
    },
    onSettled: settled,
  });
}

/**
 * A titled form section (class inline-form): its fields, the submit button (disabled while
 * `pending`) and an optional Cancel, then the request's error when no field carries it.
 */
export function FormSection({
  id,
  title,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
  children,
}: {
  id: string;
  title: string;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: () => void;
  onCancel?: () => void;
  children: ReactNode;
}) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <section className="inline-form" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <form onSubmit={submit}>
        {children}
        <div className="actions">
          <button type="submit" className="primary" disabled={pending}>
            {submitLabel}
          </button>
          {onCancel && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {Object.keys(fieldErrors(error)).length ? null : <ErrorMessage error={error} />}
    </section>
  );
}
