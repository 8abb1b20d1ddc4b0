/**
 * What makes an answer a finding: a 5xx (or no answer), another user's record or marker in a
 * user's answer, a 4xx body that is not in the contract's DRF shape, and (checked by the runner
 * with table digests) a rejected write that changed the database.
 */
import type { Answer, FuzzRequest } from './http.ts';
import { canonical, type World } from './seed.ts';
import type { ActorName } from './target.ts';

export type FindingKind = '5xx' | 'leak' | 'rejected-write-changed' | 'error-shape';

export interface Finding {
  kind: FindingKind;
  /** What findings of one root cause share (the dedup key). */
  signature: string;
  detail: string;
}

/** The error the server logged for a request, by request id (filled from the app's log). */
export type ServerErrors = Map<string, { type: string; message: string; cause?: string; frame: string }>;

/** Digits and quoted values vary between requests of one cause: fold them for the dedup key. */
const fold = (text: string) => text.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 160);

export function serverError(request: FuzzRequest, answer: Answer, errors: ServerErrors): Finding | undefined {
  if (answer.status !== 0 && answer.status < 500) return undefined;
  if (answer.status === 0) return { kind: '5xx', signature: `no answer: ${request.op}`, detail: answer.text };
  const logged = errors.get(answer.headers['x-request-id'] ?? '');
  const cause = !logged
    ? `${request.op} (nothing logged)`
    : logged.cause
      ? `database ${fold(logged.cause)}`
      : `${logged.type}: ${fold(logged.message)} @ ${logged.frame}`;
  return {
    kind: '5xx',
    signature: `${answer.status} ${cause}`,
    detail: logged ? `server logged ${logged.type}: ${logged.message.slice(0, 300)}\n    at ${logged.frame}` : '',
  };
}

/** A DRF error body: {"detail": "…"} or {"field": ["…", …], …}. */
function isDrfError(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const entries = Object.entries(json);
  if (entries.length === 0) return false;
  if (typeof (json as { detail?: unknown }).detail === 'string') return true;
  const messages = (v: unknown): boolean =>
    Array.isArray(v) ? v.every((m) => typeof m === 'string' || messages(m)) : typeof v === 'object' && v !== null && Object.values(v).every(messages);
  return entries.every(([, v]) => messages(v));
}

export function errorShape(request: FuzzRequest, answer: Answer): Finding | undefined {
  if (answer.status < 400 || answer.status >= 500 || request.method === 'HEAD') return undefined;
  const json = /^application\/json/.test(answer.headers['content-type'] ?? '');
  if (json && isDrfError(answer.json)) return undefined;
  return {
    kind: 'error-shape',
    signature: `error-shape ${answer.status} ${fold(answer.text.slice(0, 80))}`,
    detail: `content-type ${answer.headers['content-type'] ?? '(none)'}; body is not {"detail": …} nor {"field": [messages]}`,
  };
}

const RECORD_URL = /\/rest-api\/([a-z_-]+)\/(\d+)\//g;

/**
 * Another user's record (by URL) or marker in a non-admin's answer. What the request itself
 * sent may come back in a 4xx message; in a 2xx it is a leak all the same (the write took it).
 */
export function leak(world: World, request: FuzzRequest, answer: Answer): Finding | undefined {
  if (request.actor === 'admin' || answer.status === 0) return undefined;
  const text = `${answer.text} ${answer.headers.location ?? ''} ${answer.headers.link ?? ''}`;
  const sent = answer.status >= 400 && typeof request.body === 'string' ? request.body : '';
  const found: string[] = [];
  for (const [, resource, id] of text.matchAll(RECORD_URL)) {
    const owner = world.owners.get(`${canonical(resource)}/${id}`);
    if (owner && owner !== request.actor && !sent.includes(`/${resource}/${id}/`)) found.push(`${resource}/${id} of ${owner}`);
  }
  for (const [owner, marker] of Object.entries(world.markers) as [ActorName, string][]) {
    if (owner !== request.actor && text.includes(marker) && !sent.includes(marker)) found.push(`marker of ${owner}`);
  }
  if (found.length === 0) return undefined;
  // Whose records leaked varies with the request; which resource leaked is the cause.
  const kinds = [...new Set(found.map((f) => f.replace(/\/\d+ of \w+$/, '').replace(/ of \w+$/, '')))].join(', ');
  return { kind: 'leak', signature: `leak ${request.op}: ${kinds}`, detail: `the answer holds ${[...new Set(found)].join(', ')}` };
}

/** Remembers who owns a record a non-admin just created (the admin may create for anyone). */
export function noteCreated(world: World, request: FuzzRequest, answer: Answer): void {
  if (answer.status !== 201 || request.actor === 'admin' || request.auth === 'bad' || request.auth === 'none') return;
  const json = answer.json as { url?: unknown; id?: unknown } | undefined;
  const url = answer.headers.location ?? (typeof json?.url === 'string' ? json.url : undefined);
  const match = url ? /\/rest-api\/([a-z_-]+)\/(\d+)\/?$/.exec(new URL(url, 'http://x').pathname) : null;
  if (match) world.owners.set(`${canonical(match[1])}/${match[2]}`, request.actor);
  else if (request.url.startsWith('/rest-api/audio-files/') && typeof json?.id === 'number') world.owners.set(`audio-files/${json.id}`, request.actor);
}
