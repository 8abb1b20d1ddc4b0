/**
 * A multipart upload with progress. fetch() cannot report how much of a request body has been
 * sent, so uploads go through XMLHttpRequest (its `upload` progress events), with the same
 * session cookie, CSRF header and DRF-shaped errors (ApiError) as api/client.ts.
 */
import { ApiError, currentCsrfToken } from '../api/client.ts';

/** Where an upload stands: sending the bytes (with the fraction sent), then waiting for the answer. */
export type UploadStage = { stage: 'sending'; sent: number; total: number } | { stage: 'processing' };

export function upload<T>(path: string, form: FormData, onStage: (s: UploadStage) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    const token = currentCsrfToken();
    if (token) xhr.setRequestHeader('x-csrf-token', token);
    xhr.upload.onprogress = (e) => onStage({ stage: 'sending', sent: e.loaded, total: e.lengthComputable ? e.total : 0 });
    // Every byte is sent: what remains is the server reading and checking the file.
    xhr.upload.onload = () => onStage({ stage: 'processing' });
    xhr.onload = () => {
      let body: unknown = undefined;
      if (xhr.responseText) {
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          body = xhr.responseText;
        }
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else {
        const retry = Number(xhr.getResponseHeader('retry-after'));
        reject(new ApiError(xhr.status, body, Number.isFinite(retry) && retry > 0 ? retry : undefined));
      }
    };
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached.'));
    xhr.onabort = () => reject(new Error('The upload was cancelled.'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}

/** The words beside an upload's progress bar: the share sent, then that the server is at work. */
export function uploadLabel(s: UploadStage | undefined): string {
  if (!s) return '';
  if (s.stage === 'processing') return 'Sent; the server is checking the file…';
  if (!s.total) return 'Sending…';
  return `Sending… ${Math.round((100 * s.sent) / s.total)} %`;
}
