/**
 * The one way the console talks to the API. Same-origin fetch with the session cookie; every
 * write carries the session's CSRF token (X-CSRF-Token); DRF-shaped error bodies become an
 * ApiError with a message per field. Paths are the API's own (`/rest-api/campaigns/`), and the
 * absolute links found in records (`url`, `next`) are accepted as they are.
 */

export const API = '/rest-api';

/** A list page as the API answers it (contract §2). */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A failed request: `fields` holds the 400's messages per field, `detail` the message for the whole request. */
export class ApiError extends Error {
  readonly status: number;
  readonly fields: Record<string, string[]>;
  readonly detail: string | undefined;
  /** Seconds, from Retry-After (429). */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: unknown, retryAfter?: number) {
    const { fields, detail } = errorMessages(body);
    super(detail ?? (Object.entries(fields).map(([f, m]) => `${f}: ${m.join(' ')}`).join('; ') || `HTTP ${status}`));
    this.status = status;
    this.fields = fields;
    this.detail = detail ?? (Object.keys(fields).length ? undefined : `The server answered ${status}.`);
    this.retryAfter = retryAfter;
  }
}

/**
 * A DRF body → messages: `{"detail": "…"}` is about the whole request, `non_field_errors` too;
 * any other key is a field with its list of messages (a nested object, such as a list of links,
 * is flattened into its field's messages).
 */
export function errorMessages(body: unknown): { fields: Record<string, string[]>; detail: string | undefined } {
  const fields: Record<string, string[]> = {};
  let detail: string | undefined;
  const flat = (v: unknown): string[] =>
    typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(flat) : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : [String(v)];
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body)) {
      if (key === 'detail') detail = flat(value).join(' ');
      else if (key === 'non_field_errors') detail = [detail, ...flat(value)].filter(Boolean).join(' ');
      else fields[key] = flat(value);
    }
  } else if (typeof body === 'string' && body) {
    detail = body;
  }
  return { fields, detail };
}

let csrfToken: string | undefined;
/** Set by the session (sign-in, or the session read at start); sent on every write. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** The session's CSRF token, for a write not made through request() (an upload with progress). */
export const currentCsrfToken = (): string | undefined => csrfToken;

let onUnauthorized: (() => void) | undefined;
/** Called when a request answers 401 (the session expired or was signed out elsewhere). */
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A request to the API: JSON in and out; the parsed body (undefined when empty) and the response's headers. */
async function send(method: string, path: string, body?: unknown): Promise<{ parsed: unknown; headers: Headers }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (WRITES.has(method) && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && !path.endsWith('/session/')) onUnauthorized?.();
    const retry = Number(res.headers.get('retry-after'));
    throw new ApiError(res.status, parsed, Number.isFinite(retry) && retry > 0 ? retry : undefined);
  }
  return { parsed, headers: res.headers };
}

/** A request to the API: JSON in and out; resolves to the parsed body (undefined when empty). */
export async function request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  return (await send(method, path, body)).parsed as T;
}

/**
 * One page of a list the API answers as a bare array (the subscriber-list, spec §4: `?page=`,
 * with `Link: <url>; rel="next"` while more follow, and no count), as a page of the other lists
 * is read but without `count`. A page past the end (a 404 the API gives once the rows before it
 * are gone) is empty.
 */
export async function getArrayPage<T>(path: string, page: number): Promise<Pick<Page<T>, 'results' | 'next'>> {
  try {
    const { parsed, headers } = await send('GET', path);
    const next = /<([^>]*)>;\s*rel="next"/.exec(headers.get('link') ?? '');
    return { results: parsed as T[], next: next ? next[1] : null };
  } catch (error) {
    if (page > 1 && error instanceof ApiError && error.status === 404) return { results: [], next: null };
    throw error;
  }
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body: unknown) => request<T>('POST', path, body);
export const patch = (path: string, body: unknown) => request<void>('PATCH', path, body);
export const del = (path: string) => request<void>('DELETE', path);

/** `/rest-api/<resource>/` with the query's defined values. */
export function listPath(resource: string, query: Record<string, string | number | boolean | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${API}/${resource}/${qs ? `?${qs}` : ''}`;
}

/** One record's path: `/rest-api/<resource>/<id>/`. */
export const recordPath = (resource: string, id: number | string) => `${API}/${resource}/${id}/`;

/** The id at the end of a record link (`http://host/rest-api/campaigns/3/` → 3). */
export function idOf(link: string | null | undefined): number | undefined {
  const m = /\/(\d+)\/?$/.exec(link ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Every record of a list, following its `next` links (at most `max` records). */
export async function getAll<T>(path: string, max = 10_000): Promise<T[]> {
  const out: T[] = [];
  let next: string | null = path;
  while (next && out.length < max) {
    const page: Page<T> = await get<Page<T>>(next);
    out.push(...page.results);
    next = page.next;
  }
  return out;
}
