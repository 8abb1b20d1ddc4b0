/**
 * One fuzz request as plain data (so fast-check can generate, shrink and print it), sending it
 * over real HTTP, and printing it as a reproduction a reader can paste into curl.
 */
import type { ActorName, Target } from './target.ts';

/** How a request authenticates: as its actor (Basic or token), with a wrong password, or not. */
export type AuthMode = 'basic' | 'token' | 'bad' | 'none';

export interface FuzzRequest {
  /** The OpenAPI operation it exercises, e.g. "POST /rest-api/phonebook/{id}/import/". */
  op: string;
  actor: ActorName;
  auth: AuthMode;
  method: string;
  /** Path and query string, already encoded. */
  url: string;
  headers: Record<string, string>;
  /** The raw body: JSON text, multipart bytes, or anything else. */
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

const TIMEOUT_MS = 30_000;

export function authHeader(target: Target, request: Pick<FuzzRequest, 'actor' | 'auth'>): string | undefined {
  const actor = target.actors[request.actor];
  if (request.auth === 'basic') return actor.basic;
  if (request.auth === 'token') return actor.token;
  if (request.auth === 'bad') return `Basic ${Buffer.from(`${actor.username}:wrong-password`).toString('base64')}`;
  return undefined;
}

/**
 * The body of `res`. An event stream (GET /rest-api/events/) never ends by design: its first
 * chunk is its answer, then the fuzzer hangs up, rather than wait for a timeout and report a hang.
 */
async function bodyText(res: Response): Promise<string> {
  if (!/^text\/event-stream/.test(res.headers.get('content-type') ?? '') || !res.body) return res.text();
  const reader = res.body.getReader();
  const first = await reader.read();
  await reader.cancel();
  return first.value ? new TextDecoder().decode(first.value) : '';
}

/** Sends `request`; a request that gets no answer in time is answered with status 0. */
export async function send(target: Target, request: FuzzRequest): Promise<Answer> {
  const auth = authHeader(target, request);
  const headers = { ...request.headers, ...(auth ? { authorization: auth } : {}) };
  try {
    const res = await fetch(`${target.base}${request.url}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : Buffer.from(request.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await bodyText(res);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
  } catch (err) {
    return { status: 0, headers: {}, text: `no answer: ${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}`, json: undefined };
  }
}

/** JSON for the seeding calls: sends `body` as JSON and answers the parsed body; throws unless 2xx. */
export async function apiCall(target: Target, actor: ActorName, method: string, url: string, body?: unknown): Promise<Answer> {
  const answer = await send(target, {
    op: 'seed',
    actor,
    auth: 'basic',
    method,
    url,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(`seed: ${method} ${url} as ${actor} → ${answer.status} ${answer.text.slice(0, 500)}`);
  }
  return answer;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/** Binary bodies shown with their bytes escaped; long ones cut. */
function showBody(body: FuzzRequest['body']): string {
  if (body === undefined) return '(none)';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
  return clip(JSON.stringify(text), 1500);
}

/** The request and its answer, as printed in a finding. */
export function describe(target: Target, request: FuzzRequest, answer: Answer): string {
  const actor = target.actors[request.actor];
  const headers = Object.entries(request.headers).map(([k, v]) => `    ${k}: ${v}`);
  return [
    `  ${request.method} ${request.url}   (operation ${request.op})`,
    `    as ${request.actor} (${actor.username}, ${request.auth === 'bad' ? 'wrong password' : request.auth})`,
    ...headers,
    `    body: ${showBody(request.body)}`,
    `  → ${answer.status} ${clip(answer.text, 800)}`,
  ].join('\n');
}
