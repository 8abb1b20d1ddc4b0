/**
 * Browser sessions (issue 15 §2): the operators' console signs in once (POST
 * /rest-api/session/) and is then authenticated by an HttpOnly cookie, `dialer_session`, whose
 * value is a 256-bit random secret; the database keeps only its sha256 (sessions.repository).
 * Every request with the cookie reads its row (one indexed read, no cache), so a session that is
 * signed out, expired, or whose user was deactivated or changed password is refused at once by
 * every process. Sessions expire SESSION_HOURS after sign-in, however much they are used.
 *
 * A cookie is sent by the browser whoever made the page, so a write made with it must prove it
 * came from the console (checkCsrf): the header `X-CSRF-Token` equal to the session's token (a
 * page of another site cannot read it), and an `Origin` naming this host (or, with no Origin, no
 * `Sec-Fetch-Site: cross-site`). The 403 bodies are DRF's.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import {
  deleteSession,
  findLiveSession,
  insertSession,
  type LiveSessionRow,
  pruneSessions,
  touchSession,
} from '../users/sessions.repository.ts';
import { AppError, unauthorized } from './errors.ts';
import { isoTime } from './present.ts';

export const SESSION_COOKIE = 'dialer_session';
export const CSRF_HEADER = 'x-csrf-token';
/** A session's last use is written at most this often: reads stay reads. */
const TOUCH_MS = 5 * 60_000;
/** 32 random bytes, base64url: anything else is no session, and costs no database read. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SessionOptions {
  /** How long a session lasts from sign-in (config SESSION_HOURS). */
  hours: number;
  /** The clock (ms since the epoch), for tests. */
  now?: () => number;
}

export type LiveSession = LiveSessionRow;

const sha256 = (text: string) => crypto.hash('sha256', text, 'hex');
const iso = (ms: number) => new Date(ms).toISOString();

/** The value of the session cookie the request carries, if any. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for the session cookie: HttpOnly, SameSite=Strict, Secure when the request came over https. */
function cookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  // request.protocol honours X-Forwarded-Proto only when TRUST_PROXY trusts the proxy.
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure}`;
}

/** The `Set-Cookie` that makes the browser drop its session cookie. */
export function clearedCookie(request: FastifyRequest): string {
  return cookie(request, '', 0);
}

const csrfFailed = (reason: string) => new AppError(403, { detail: `CSRF Failed: ${reason}` });

/**
 * Refuses a request from another site: an `Origin` whose host is not the request's (its `Host`,
 * or the trusted proxy's X-Forwarded-Host), or, without Origin, `Sec-Fetch-Site: cross-site`.
 * Default ports are read from the Origin's scheme, so `http://h` and `Host: h:80` agree.
 */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (request.headers['sec-fetch-site'] === 'cross-site') throw csrfFailed('Origin checking failed - the request is cross-site.');
    return;
  }
  let same = false;
  try {
    const from = new URL(origin);
    same = (from.protocol === 'http:' || from.protocol === 'https:') && from.host === new URL(`${from.protocol}//${request.host}`).host;
  } catch {
    same = false; // "null" (a sandboxed page) or garbage: not this host
  }
  if (!same) throw csrfFailed(`Origin checking failed - ${origin.slice(0, 200)} does not match any trusted origins.`);
}

/** A write (POST, PUT, PATCH, DELETE) made with the session cookie must come from the console. */
export function checkCsrf(request: FastifyRequest, session: LiveSession): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  checkOrigin(request);
  const token = request.headers[CSRF_HEADER];
  // Hashing both sides gives equal lengths for the constant-time comparison.
  if (typeof token !== 'string' || !crypto.timingSafeEqual(Buffer.from(sha256(token)), Buffer.from(sha256(session.csrf_token)))) {
    throw csrfFailed('CSRF token missing or incorrect.');
  }
}

export class Sessions {
  readonly hours: number;
  private readonly now: () => number;

  constructor(options: SessionOptions) {
    this.hours = options.hours;
    this.now = options.now ?? Date.now;
  }

  /** The live session of the request's cookie, or undefined (no cookie, unknown, expired, user inactive). */
  async fromRequest(db: Db, request: FastifyRequest): Promise<LiveSession | undefined> {
    const secret = sessionCookie(request);
    if (secret === undefined || !SECRET.test(secret)) return undefined;
    const now = this.now();
    const session = await findLiveSession(db, sha256(secret), iso(now));
    if (session && now - Date.parse(isoTime(session.last_seen) as string) > TOUCH_MS) await touchSession(db, session.id, iso(now));
    return session;
  }

  /** Starts a session of `userId` (401 if that user is not active now), sets its cookie on `reply`; expired sessions are pruned on the way. */
  async open(db: Db, userId: number, request: FastifyRequest, reply: FastifyReply): Promise<Pick<LiveSession, 'csrf_token' | 'expires'>> {
    const now = this.now();
    const secret = crypto.randomBytes(32).toString('base64url');
    const csrf_token = crypto.randomBytes(32).toString('base64url');
    const maxAge = this.hours * 3600;
    const expires = iso(now + maxAge * 1000);
    await pruneSessions(db, iso(now));
    // Only for a user active now: the sign-in's checks read the user cache, which hears of an
    // account deactivated elsewhere (another process, SQL by hand) a moment later.
    const session = await insertSession(db, { user_id: userId, secret_hash: sha256(secret), csrf_token, created: iso(now), expires });
    if (!session) throw unauthorized('User inactive or deleted.', false);
    reply.header('set-cookie', cookie(request, secret, maxAge));
    return { csrf_token, expires };
  }

  /** Ends `session`: its row is deleted (the caller clears the cookie when it answers the browser). */
  async close(db: Db, session: LiveSession): Promise<void> {
    await deleteSession(db, session.id);
  }
}
