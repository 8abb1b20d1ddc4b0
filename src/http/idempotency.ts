/**
 * Idempotency keys: a POST sent with an `Idempotency-Key` header is done once. The first
 * request with a key claims it (a row in idempotency_keys, per user); its answer (status, content
 * type, location, body) is kept for 24 hours, and a retry with the same key and the same request
 * gets that answer again, marked `Idempotent-Replayed: true`, without doing the work twice.
 *
 * - The same key with another request (method, path or body) is a 422.
 * - A retry that arrives while the first is still running waits for its answer (up to
 *   WAIT_MS), so two concurrent requests with one key make one record; after that, a 409.
 * - A 5xx answer is not kept: the key is released, so the client may retry.
 * - A request whose process died before its answer was kept leaves the key claimed with no
 *   answer: a retry gets a 409 saying the outcome is unknown (it may or may not have been done),
 *   never a second execution.
 * Bodies are compared as parsed JSON; a multipart upload is compared by its size and type only.
 */
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { idempotencyKeys } from '../db/schema.ts';
import type { Api } from './api.ts';
import { AppError, conflict } from './errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long an answer is kept and replayed. */
export const KEEP_HOURS = 24;
/** How long a retry waits for the first request's answer before a 409. */
const WAIT_MS = 10_000;
const POLL_MS = 50;
/** A key claimed longer ago than this with no answer belongs to a request that was cut off. */
const ABANDONED_MS = 5 * 60_000;
/** Headers of the first answer that a replay repeats. */
const REPLAYED_HEADERS = ['content-type', 'location'];
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface Claimed {
  userId: number;
  key: string;
}

interface KeyRow {
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  age_ms: number;
}

const claims = new WeakMap<FastifyRequest, Claimed>();

/** Adds the hooks to the authenticated API scope (after its authentication hook). */
export function registerIdempotency(api: Api, db: Db): void {
  const pruner = setInterval(() => pruneIdempotencyKeys(db).catch((err) => api.log.warn({ err }, 'pruning idempotency keys failed')), 3_600_000);
  pruner.unref();
  api.addHook('onClose', () => clearInterval(pruner));
  // Callback-style hooks: they run on every request, and most have no key (cheaper than async).
  api.addHook('preHandler', (request, reply, done) => {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (request.method !== 'POST' || header === undefined || !request.user) return done();
    const key = Array.isArray(header) ? header[0] : header;
    // A replayed answer is sent from here: the handler does not run (and done is not called).
    claimOrReplay(db, request, reply, request.user.id, key).then((replayed) => {
      if (!replayed) done();
    }, done);
  });
  api.addHook('onSend', (request, reply, payload, done) => {
    const claimed = claims.get(request);
    if (!claimed) return done(null, payload);
    claims.delete(request);
    settle(db, claimed, reply, payload).then(() => done(null, payload), (err) => done(err));
  });
}

/** Claims the key for `request` (false), or answers it from the key's first request (true). */
async function claimOrReplay(db: Db, request: FastifyRequest, reply: FastifyReply, userId: number, key: string): Promise<boolean> {
  if (!KEY_PATTERN.test(key)) {
    throw new AppError(400, { detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' });
  }
  const fingerprint = fingerprintOf(request);
  const started = Date.now();
  for (;;) {
    if (await claim(db, userId, key, fingerprint)) {
      claims.set(request, { userId, key });
      return false;
    }
    const row = await findKey(db, userId, key);
    if (!row) continue; // expired (now deleted) or released since: claim again
    if (row.fingerprint !== fingerprint) {
      throw new AppError(422, { detail: 'This Idempotency-Key was already used with a different request.' });
    }
    if (row.status !== null) {
      replay(reply, row);
      return true;
    }
    if (row.age_ms > ABANDONED_MS) {
      throw conflict('The request first sent with this Idempotency-Key was interrupted; whether it was done is unknown. Check, then retry with a new key.');
    }
    if (Date.now() - started > WAIT_MS) throw conflict('A request with this Idempotency-Key is still in progress.');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Keeps the answer for the key's retries; a 5xx (or a streamed body) releases the key instead. */
async function settle(db: Db, claimed: Claimed, reply: FastifyReply, payload: unknown): Promise<void> {
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (reply.statusCode >= 500 || (payload != null && body === null)) await release(db, claimed);
  else await keep(db, claimed, reply, body ?? '');
}

/** What makes two requests "the same": method, path with query, and body. */
function fingerprintOf(request: FastifyRequest): string {
  const body = request.isMultipart()
    ? `multipart ${request.headers['content-type'] ?? ''} ${request.headers['content-length'] ?? ''}`
    : JSON.stringify(request.body ?? null);
  return crypto.createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

/** Claims the key for this request; false when another request holds it. */
async function claim(db: Db, userId: number, key: string, fingerprint: string): Promise<boolean> {
  const rows = await queryRows<{ claimed: number }>(
    db,
    sql`insert into ${idempotencyKeys} (user_id, key, fingerprint) values (${userId}, ${key}, ${fingerprint})
        on conflict (user_id, key) do nothing
        returning 1 as claimed`,
  );
  return rows.length > 0;
}

/** The key's row; an expired one is deleted and reads as none. */
async function findKey(db: Db, userId: number, key: string): Promise<KeyRow | undefined> {
  const [row] = await queryRows<KeyRow & { expired: boolean }>(
    db,
    sql`select fingerprint, status, headers, body,
               (extract(epoch from now() - created) * 1000)::float8 as age_ms,
               created < now() - make_interval(hours => ${KEEP_HOURS}) as expired
        from ${idempotencyKeys}
        where user_id = ${userId} and key = ${key}`,
  );
  if (!row) return undefined;
  if (row.expired) {
    await queryRows(
      db,
      sql`delete from ${idempotencyKeys}
          where user_id = ${userId} and key = ${key} and created < now() - make_interval(hours => ${KEEP_HOURS})`,
    );
    return undefined;
  }
  return { ...row, status: row.status === null ? null : Number(row.status), age_ms: Number(row.age_ms) };
}

async function keep(db: Db, { userId, key }: Claimed, reply: FastifyReply, body: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  await queryRows(
    db,
    sql`update ${idempotencyKeys} set status = ${reply.statusCode}, headers = ${JSON.stringify(headers)}, body = ${body}
        where user_id = ${userId} and key = ${key}`,
  );
}

async function release(db: Db, { userId, key }: Claimed): Promise<void> {
  await queryRows(db, sql`delete from ${idempotencyKeys} where user_id = ${userId} and key = ${key} and status is null`);
}

function replay(reply: FastifyReply, row: KeyRow): void {
  const headers = JSON.parse(row.headers ?? '{}') as Record<string, string>;
  reply
    .code(row.status as number)
    .headers({ ...headers, 'idempotent-replayed': 'true' })
    .send(row.body ?? '');
}

/** Deletes the keys older than KEEP_HOURS (called now and then by the server). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with gone as (delete from ${idempotencyKeys} where created < now() - make_interval(hours => ${KEEP_HOURS}) returning 1)
        select count(*)::int as n from gone`,
  );
  return Number(rows[0]?.n ?? 0);
}
