/**
 * Throttling of password guessing (HTTP Basic). Failures are counted per (client address,
 * username) and per username across addresses, in the database (login_failures), so that the
 * counts survive a restart and every API process sees them. Throttling refuses only password
 * attempts at the throttled username: other users, and tokens, are never refused because
 * someone failed. The limits and their reasons are in the README ("Login throttling").
 *
 * - (address, username) locked: every password attempt for that username from that address is
 *   429, even a right one, so a guess gains nothing while it lasts.
 * - username locked (failures from many addresses): 429 only from addresses that have failed
 *   for that username; an address with no failure on record may still try, so a botnet cannot
 *   lock the real user out, at the cost of one guess per new address during the lockout.
 * - A success forgets the failures of (address, username) only; never the username's count
 *   across addresses, nor anything of another account.
 *
 * Cost: a credential verified lately (auth.ts's cache) is accepted with no database read,
 * unless this process knows of a lockout of that username; the table is read before a
 * password is hashed, and written at a failure and at a success after failures.
 */
import net from 'node:net';
import type { Db } from '../db/database.ts';
import {
  ANY_ADDRESS,
  type CounterPolicy,
  deleteLoginFailures,
  type FailureCount,
  listLoginFailures,
  recordLoginFailure,
  type Retention,
} from '../users/login-failures.repository.ts';
import { tooManyRequests } from './errors.ts';
import { BoundedMap } from './bounded-map.ts';

const MINUTE = 60_000;

export interface ThrottlePolicy extends Retention {
  /** The counter of one username from one address (an IPv6 /64 counts as one address). */
  address: CounterPolicy;
  /** The counter of one username across every address: higher threshold, shorter lockouts. */
  user: CounterPolicy;
}

export const DEFAULT_THROTTLE: ThrottlePolicy = {
  address: { threshold: 10, windowMs: 15 * MINUTE, lockMs: 5 * MINUTE, maxLockMs: 60 * MINUTE },
  user: { threshold: 50, windowMs: 15 * MINUTE, lockMs: 1 * MINUTE, maxLockMs: 15 * MINUTE },
  forgetMs: 24 * 60 * MINUTE,
};

export interface ThrottleOptions {
  address?: Partial<CounterPolicy>;
  user?: Partial<CounterPolicy>;
  forgetMs?: number;
}

/** The keys of one login attempt, as stored. */
interface Attempt {
  username: string;
  address: string;
  /** `username` and `address` joined, for the in-process maps. */
  key: string;
}

export class LoginThrottle {
  readonly policy: ThrottlePolicy;
  /** Lockouts this process has seen, until when: per attempt key, and per username (across addresses). */
  private readonly lockedPairs = new BoundedMap<number>(10_000);
  private readonly lockedUsers = new BoundedMap<number>(10_000);
  /** Attempt keys this process counted a failure for, so that a success on the fast path forgets them. */
  private readonly failedHere = new BoundedMap<number>(10_000);
  /** Attempts of one key run one after another, so parallel guesses cannot pass the check together. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    options: ThrottleOptions = {},
    private readonly clock: () => number = Date.now,
  ) {
    this.policy = {
      address: { ...DEFAULT_THROTTLE.address, ...options.address },
      user: { ...DEFAULT_THROTTLE.user, ...options.user },
      forgetMs: options.forgetMs ?? DEFAULT_THROTTLE.forgetMs,
    };
  }

  /**
   * A password login of `username` from `ip`: `known` is the user when the credential was
   * verified lately, else `verify` checks the password. Returns the user, or undefined for a
   * wrong password or unknown user (counted); throws 429 while the attempt is locked.
   */
  async login<T>(db: Db, username: string, ip: string, known: T | undefined, verify: () => Promise<T | undefined>): Promise<T | undefined> {
    const attempt = attemptOf(username, ip);
    if (known !== undefined && !this.mayBeLocked(attempt)) {
      // The fast path: no database read, unless this process counted a failure to forget.
      if ((this.failedHere.get(attempt.key) ?? 0) > this.clock()) await this.forget(db, attempt);
      return known;
    }
    return this.serially(attempt.key, () => this.checkedLogin(db, attempt, known, verify));
  }

  private async checkedLogin<T>(db: Db, attempt: Attempt, known: T | undefined, verify: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = this.clock();
    const counts = await listLoginFailures(db, attempt.username, attempt.address, now);
    this.remember(attempt, counts);
    const pair = counts.find((c) => c.address === attempt.address);
    const across = counts.find((c) => c.address === ANY_ADDRESS);
    const until = Math.max(
      pair?.locked_until ?? 0,
      // Across addresses, only an address that has failed for this username is refused.
      pair ? (across?.locked_until ?? 0) : 0,
    );
    if (until > now) throw tooManyRequests(Math.max(1, Math.ceil((until - now) / 1000)));
    const user = known ?? (await verify());
    if (user === undefined) {
      const after = await recordLoginFailure(db, attempt.username, attempt.address, this.clock(), this.policy);
      this.remember(attempt, after);
      this.failedHere.set(attempt.key, this.clock() + this.policy.forgetMs);
      return undefined;
    }
    if (pair) await this.forget(db, attempt);
    return user;
  }

  /** Whether this process has seen a lockout that may refuse `attempt`: then the database decides. */
  private mayBeLocked(attempt: Attempt): boolean {
    const now = this.clock();
    return (this.lockedPairs.get(attempt.key) ?? 0) > now || (this.lockedUsers.get(attempt.username) ?? 0) > now;
  }

  /** Keeps the lockouts `counts` show (both counters of `attempt`, read or just written). */
  private remember(attempt: Attempt, counts: FailureCount[]): void {
    const now = this.clock();
    for (const [map, key, address] of [
      [this.lockedPairs, attempt.key, attempt.address],
      [this.lockedUsers, attempt.username, ANY_ADDRESS],
    ] as const) {
      const until = counts.find((c) => c.address === address)?.locked_until ?? 0;
      if (until > now) map.set(key, until);
      else map.delete(key);
    }
  }

  private async forget(db: Db, attempt: Attempt): Promise<void> {
    await deleteLoginFailures(db, attempt.username, attempt.address);
    this.failedHere.delete(attempt.key);
    this.lockedPairs.delete(attempt.key);
  }

  private serially<R>(key: string, run: () => Promise<R>): Promise<R> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return result;
  }
}

function attemptOf(username: string, ip: string): Attempt {
  // Stored as varchar(150): a longer name is no user's, and shares the count of its first 150
  // characters. A NUL cannot be stored in PostgreSQL text.
  const name = username.replaceAll('\0', '\uFFFD').slice(0, 150);
  const address = addressKey(ip);
  return { username: name, address, key: `${name}\0${address}` };
}

/**
 * The address an attempt is counted under: IPv4 as is (an IPv4-mapped IPv6 address as IPv4),
 * IPv6 by its /64 prefix, which one subscriber usually holds whole.
 */
export function addressKey(ip: string | undefined): string {
  const bare = (ip ?? '').split('%')[0];
  if (!net.isIPv6(bare)) return bare.slice(0, 64) || 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1];
  const groups = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head, tail] = bare.split('::');
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
