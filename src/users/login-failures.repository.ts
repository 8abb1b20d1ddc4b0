/**
 * The SQL of login throttling (table login_failures, migration 0013): a row per (username,
 * address) and one per username across addresses (address ''). The rules that read these
 * counts are in src/http/login-throttle.ts. Times are given by the caller (its clock), in ms.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';

/** The address of a username's counter across every address. */
export const ANY_ADDRESS = '';

/** How one counter counts and locks. */
export interface CounterPolicy {
  /** Failures within `windowMs` (counted from the first) that lock the counter. */
  threshold: number;
  windowMs: number;
  /** The first lockout; each further one doubles, up to `maxLockMs`. */
  lockMs: number;
  maxLockMs: number;
}

export interface FailureCount {
  address: string;
  failures: number;
  lockouts: number;
  /** ms since the epoch, or null when never locked. */
  locked_until: number | null;
}

/** Rows expire this long after their last failure written. */
export interface Retention {
  forgetMs: number;
}

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
const span = (ms: number) => sql`(${ms}::float8 * interval '1 millisecond')`;
const columns = sql`address, failures, lockouts, (extract(epoch from locked_until) * 1000)::float8 as locked_until`;

/** The counters of `username` at `address` and across addresses that have not expired. */
export async function listLoginFailures(db: Db, username: string, address: string, now: number): Promise<FailureCount[]> {
  const rows = await queryRows<FailureCount>(
    db,
    sql`select ${columns} from login_failures
      where username = ${username} and address in (${address}, ${ANY_ADDRESS}) and expires_at > ${at(now)}`,
  );
  return rows.map(normalise);
}

/**
 * Counts one failure on both counters of (`username`, `address`) in one statement, locking a
 * counter that reaches its threshold, and deletes a few expired rows of other logins on the
 * way (so the table holds only recent failures without a timer). Returns both counters.
 * Deadlock-free: every statement locks its pair row, then its username's row; the pruning
 * (which runs last) skips rows that another statement holds instead of waiting for them.
 */
export async function recordLoginFailure(
  db: Db,
  username: string,
  address: string,
  now: number,
  policies: { address: CounterPolicy; user: CounterPolicy } & Retention,
): Promise<FailureCount[]> {
  const rows = await queryRows<FailureCount>(
    db,
    sql`with pair as (${upsert(username, address, policies.address, now, policies.forgetMs)}),
      across as (${upsert(username, ANY_ADDRESS, policies.user, now, policies.forgetMs)}),
      pruned as (
        delete from login_failures where expires_at <= ${at(now)} and (username, address) in (
          select username, address from login_failures
          where expires_at <= ${at(now)} and not (username = ${username} and address in (${address}, ${ANY_ADDRESS}))
          limit 100 for update skip locked))
      select * from pair union all select * from across`,
  );
  return rows.map(normalise);
}

/** Forgets the failures of `username` at `address` (after a success there); not the other counter. */
export async function deleteLoginFailures(db: Db, username: string, address: string): Promise<void> {
  await db.execute(sql`delete from login_failures where username = ${username} and address = ${address}`);
}

/**
 * One counter's upsert. The count restarts when its window has passed; at the threshold the
 * counter locks for lockMs × 2^(lockouts so far), at most maxLockMs, and counts again from 0.
 * A row past expires_at that is not pruned yet counts as new (its lockouts are forgotten).
 */
function upsert(username: string, address: string, p: CounterPolicy, now: number, forgetMs: number): SQL {
  const inWindow = sql`(f.window_start > ${at(now)} - ${span(p.windowMs)} and f.expires_at > ${at(now)})`;
  const count = sql`(case when ${inWindow} then f.failures + 1 else 1 end)`;
  const locks = sql`(${count} >= ${p.threshold})`;
  const before = sql`(case when f.expires_at > ${at(now)} then f.lockouts else 0 end)`;
  const lockFor = sql`least(${span(p.lockMs)} * power(2, least(${before}, 30)), ${span(p.maxLockMs)})`;
  // A first failure locks only with a threshold of 1 (tests); the count is then 0 again.
  const first = p.threshold <= 1;
  const expires = at(now + Math.max(forgetMs, p.maxLockMs));
  return sql`insert into login_failures as f (username, address, failures, window_start, lockouts, locked_until, expires_at)
    values (${username}, ${address}, ${first ? 0 : 1}, ${at(now)}, ${first ? 1 : 0},
      ${first ? at(now + Math.min(p.lockMs, p.maxLockMs)) : null}, ${expires})
    on conflict (username, address) do update set
      failures = case when ${locks} then 0 else ${count} end,
      window_start = case when ${locks} or not ${inWindow} then ${at(now)} else f.window_start end,
      lockouts = ${before} + case when ${locks} then 1 else 0 end,
      locked_until = case when ${locks} then ${at(now)} + ${lockFor} else f.locked_until end,
      expires_at = ${expires}
    returning ${columns}`;
}

function normalise(row: FailureCount): FailureCount {
  return {
    address: row.address,
    failures: Number(row.failures),
    lockouts: Number(row.lockouts),
    locked_until: row.locked_until === null ? null : Number(row.locked_until),
  };
}
