/**
 * CSV import into a phonebook or a DNC list (POST …/<id>/import/, multipart `file`): the bytes'
 * progress, then the server's answer — counts, and each rejected row with its line in the file
 * (the header is line 1) and the reason, as the API gives them (it lists the first 100).
 */
import { useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';
import { formatInteger } from '../format.ts';
import { ErrorMessage, Field } from './ui.tsx';
import { UploadProgress } from './upload-progress.tsx';
import { upload, type UploadStage } from './upload.ts';
import './lists.css';

/** The import's answer (README, "The API": bulk imports). */
export interface ImportSummary {
  imported: number;
  duplicates_skipped: number;
  rejected_count: number;
  rejected: { line: number; error: string }[];
}

export function CsvImport({
  path,
  what,
  columns,
  invalidate,
}: {
  /** `/rest-api/phonebook/3/import/` */
  path: string;
  /** "contacts", "numbers" (the plural; its singular drops the final s) */
  what: string;
  /** What the file holds, in words, shown as the file field's hint. */
  columns: string;
  /** Resources whose queries the import makes stale. */
  invalidate: string[];
}) {
  const client = useQueryClient();
  const fileRef = useRef<HTMLInputElement>(null);
  const [skip, setSkip] = useState(true);
  const [stage, setStage] = useState<UploadStage>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<ImportSummary>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const file = fileRef.current?.files?.[0];
    setResult(undefined);
    if (!file) {
      setError(new ApiError(400, { file: ['Choose a CSV file first.'] }));
      return;
    }
    const form = new FormData();
    form.append('file', file, file.name);
    setError(undefined);
    setBusy(true);
    setStage({ stage: 'sending', sent: 0, total: file.size });
    try {
      const answer = await upload<ImportSummary>(`${path}?skip_duplicates=${skip}`, form, setStage);
      setResult(answer);
      if (fileRef.current) fileRef.current.value = '';
      for (const r of invalidate) void client.invalidateQueries({ queryKey: [r] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      setStage(undefined);
    }
  }

  const fileErrors = error instanceof ApiError ? error.fields.file : undefined;
  return (
    <section className="import" aria-labelledby="import-title">
      <h2 id="import-title">Import {what} from a CSV file</h2>
      <form onSubmit={submit} className="import-form">
        <Field label="CSV file" hint={columns} errors={fileErrors}>
          {(p) => <input {...p} ref={fileRef} type="file" name="file" accept=".csv,text/csv,text/plain" disabled={busy} />}
        </Field>
        <label className="check">
          <input type="checkbox" checked={skip} onChange={(e) => setSkip(e.target.checked)} disabled={busy} />
          Skip numbers already in this list
        </label>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
      <UploadProgress stage={stage} label="Import progress" />
      {error && !fileErrors ? <ErrorMessage error={error} /> : null}
      {result && <ImportResult result={result} what={what} />}
    </section>
  );
}

function ImportResult({ result, what }: { result: ImportSummary; what: string }) {
  return (
    <div className="import-result" role="status">
      <p>
        <strong>{formatInteger(result.imported)}</strong> {result.imported === 1 ? what.replace(/s$/, '') : what} imported,{' '}
        {formatInteger(result.duplicates_skipped)} {result.duplicates_skipped === 1 ? 'duplicate' : 'duplicates'} skipped,{' '}
        <strong className={result.rejected_count ? 'bad' : undefined}>{formatInteger(result.rejected_count)}</strong>{' '}
        {result.rejected_count === 1 ? 'row' : 'rows'} rejected.
      </p>
      {result.rejected_count > 0 && (
        <div className="table-wrap">
          <table className="rejected">
            <caption>
              Rejected rows{result.rejected_count > result.rejected.length ? ` (the first ${formatInteger(result.rejected.length)} of ${formatInteger(result.rejected_count)})` : ''}:
              fix them in the file and import it again.
            </caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {result.rejected.map((r) => (
                <tr key={r.line}>
                  <td className="num">{formatInteger(r.line)}</td>
                  <td className="wrap">{r.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
