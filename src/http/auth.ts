/**
 * Authentication (contract §3): HTTP Basic and `Authorization: Token <key>`, and, for the
 * operators' console, the session cookie of sessions.ts when no Authorization header is sent
 * (a write with it must pass the CSRF checks). Users are read
 * through the user cache (user-cache.ts), and verified credentials are cached briefly so a
 * request does not pay a slow hash each time; that key includes the stored hash, so a password
 * changed anywhere (even by the CLI in another process) misses it as soon as the user cache
 * drops the changed row. Password guessing is throttled per username by login-throttle.ts.
 */
import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { listTokensByPrefix, type UserRow } from '../users/users.repository.ts';
import { unauthorized } from './errors.ts';
import { LoginThrottle, type ThrottleOptions } from './login-throttle.ts';
import { verifySecret } from './passwords.ts';
import type { UserCache } from './user-cache.ts';
import { BoundedMap } from './bounded-map.ts';
import { checkCsrf, sessionCookie, type Sessions } from './sessions.ts';

export interface AuthUser {
  readonly id: number;
  readonly username: string;
  readonly is_admin: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every /rest-api/ route except the public ones. */
    user: AuthUser;
  }
  interface FastifyInstance {
    /** The authenticator of this app (see buildApp): the session routes sign in through it. */
    authenticator: Authenticator;
  }
}

export interface AuthOptions {
  /** How long a verified credential is trusted without hashing again. */
  cacheMs?: number;
  cacheSize?: number;
  /** The limits of login throttling (login-throttle.ts: DEFAULT_THROTTLE). */
  throttle?: ThrottleOptions;
  /** The clock (ms since the epoch), for tests. */
  now?: () => number;
}

const sha256 = (...parts: string[]) => crypto.hash('sha256', parts.join('\0'), 'base64');

type Credential =
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'token'; key: string };

/** Reads `Basic <base64 user:password>` or `Token <key>`; undefined for anything else. */
function parseCredential(header: string): Credential | undefined {
  const trimmed = header.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return undefined;
  const scheme = trimmed.slice(0, space).toLowerCase();
  const value = trimmed.slice(space).trim();
  if (scheme === 'token') return { scheme, key: value };
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // No account's name or password holds a NUL, and PostgreSQL could not look one up (→ 401).
  if (colon < 0 || decoded.includes('\u0000')) return undefined;
  return { scheme, username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class Authenticator {
  private readonly verified: BoundedMap<number>;
  /** Username and password pairs verified lately (whatever the hash then), until when. */
  private readonly verifiedNames: BoundedMap<number>;
  /** Verifications under way, so that concurrent requests with one credential hash it once. */
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly throttle: LoginThrottle;
  private readonly opts: { cacheMs: number; cacheSize: number; now: () => number };

  constructor(
    private readonly users: UserCache,
    /** The console's sign-ins: the third way to authenticate, after Basic and Token. */
    readonly sessions: Sessions,
    options: AuthOptions = {},
  ) {
    this.opts = {
      cacheMs: 5 * 60_000,
      cacheSize: 10_000,
      now: Date.now,
      ...options,
    };
    this.verified = new BoundedMap(this.opts.cacheSize);
    this.verifiedNames = new BoundedMap(this.opts.cacheSize);
    this.throttle = new LoginThrottle(options.throttle, this.opts.now);
  }

  /**
   * Returns the caller of `request`, or throws 401 (or 429 while guessing its username is
   * throttled, or 403 for a write with the session cookie that fails the CSRF checks). An
   * Authorization header wins; without one, the console's session cookie (sessions.ts).
   */
  async authenticate(db: Db, request: FastifyRequest): Promise<AuthUser> {
    const header = request.headers.authorization;
    if (!header) {
      const session = await this.sessions.fromRequest(db, request);
      const detail = sessionCookie(request) === undefined ? undefined : 'Invalid or expired session.';
      if (!session) throw unauthorized(detail, challenges(request));
      checkCsrf(request, session);
      return { id: session.user_id, username: session.username, is_admin: session.is_admin };
    }
    const now = this.opts.now();
    const credential = parseCredential(header);
    // Most requests repeat a credential already verified, of a user in the cache: no database
    // read. Passwords go through the throttle; a token is 2^192 guesses away and is not counted.
    const user = credential?.scheme === 'basic' ? await this.password(db, credential, request.ip, now) : credential && (await this.verify(db, credential, now));
    if (!user) throw unauthorized(credential?.scheme === 'token' ? 'Invalid token.' : 'Invalid username/password.', challenges(request));
    // A deactivated account (migration 0015): refused by password and by token, from the moment
    // the user cache drops its row (at once in this process; on the users_changed notice elsewhere).
    if (!user.is_active) throw unauthorized('User inactive or deleted.', challenges(request));
    return { id: user.id, username: user.username, is_admin: user.is_admin };
  }

  /**
   * A sign-in with a username and password (POST /rest-api/session/): the same checks, cache
   * and login throttle as a Basic credential. Throws 401 (no Basic challenge: it is not Basic) or 429.
   */
  async login(db: Db, request: FastifyRequest, username: string, password: string): Promise<AuthUser> {
    // No account's name or password holds a NUL, and PostgreSQL could not look one up.
    const nul = username.includes('\u0000') || password.includes('\u0000');
    const user = nul ? undefined : await this.password(db, { scheme: 'basic', username, password }, request.ip, this.opts.now());
    if (!user) throw unauthorized('Invalid username/password.', false);
    if (!user.is_active) throw unauthorized('User inactive or deleted.', false);
    return { id: user.id, username: user.username, is_admin: user.is_admin };
  }

  private async password(db: Db, credential: Credential & { scheme: 'basic' }, ip: string, now: number): Promise<UserRow | undefined> {
    return this.throttle.login(db, credential.username, ip, await this.known(db, credential, now), () => this.verify(db, credential, now));
  }

  /**
   * The user of a Basic credential verified lately. Its row comes from the cache; a row just
   * dropped (its balance changed, say) is read again, one read shared by every request waiting
   * for it, and only for a credential this process verified lately, so a guess does not reach
   * the database before the throttle. Without this, each request of a user whose row was dropped
   * took the throttle's serial path (a database read each, one after the other behind every
   * other query on PGlite's single connection): payments to a busy admin made p99 seconds long.
   */
  private async known(db: Db, credential: Credential, now: number): Promise<UserRow | undefined> {
    if (credential.scheme !== 'basic') return undefined;
    const { username, password } = credential;
    const lately = (this.verifiedNames.get(sha256(username, password)) ?? 0) > now;
    const user = this.users.peekByUsername(username) ?? (lately ? await this.users.byUsername(db, username) : undefined);
    if (!user) return undefined;
    const until = this.verified.get(sha256(password, user.password_hash));
    return until !== undefined && until > now ? user : undefined;
  }

  private async verify(db: Db, credential: Credential, now: number): Promise<UserRow | undefined> {
    if (credential.scheme === 'basic') {
      const { username, password } = credential;
      const user = await this.users.byUsername(db, username);
      if (!user) {
        await verifySecret(password, DUMMY_HASH); // same cost as a real check: no user-name oracle
        return undefined;
      }
      if (!(await this.check(password, user.password_hash, now))) return undefined;
      this.verifiedNames.set(sha256(username, password), now + this.opts.cacheMs);
      return user;
    }
    const prefix = credential.key.split('.')[0];
    if (!prefix || prefix.length > 16) return undefined;
    for (const token of await listTokensByPrefix(db, prefix)) {
      if (await this.check(credential.key, token.key_hash, now)) return this.users.byId(db, token.user_id);
    }
    return undefined;
  }

  private async check(secret: string, storedHash: string, now: number): Promise<boolean> {
    const key = sha256(secret, storedHash);
    const until = this.verified.get(key);
    if (until !== undefined && until > now) return true;
    let verification = this.pending.get(key);
    if (!verification) {
      verification = verifySecret(secret, storedHash).finally(() => this.pending.delete(key));
      this.pending.set(key, verification);
    }
    if (!(await verification)) return false;
    this.verified.set(key, now + this.opts.cacheMs);
    return true;
  }
}

/**
 * Whether a 401 may carry `WWW-Authenticate: Basic`. Not to the console: a browser answers that
 * header with its own login dialog. Its requests are told apart by the session cookie, or by
 * `Sec-Fetch-Mode` (sent by browsers; `navigate` when a person opens an API URL, who may well
 * want the dialog). API clients send neither and keep the challenge (contract §2).
 */
function challenges(request: FastifyRequest): boolean {
  const mode = request.headers['sec-fetch-mode'];
  return sessionCookie(request) === undefined && (mode === undefined || mode === 'navigate');
}

// A valid hash of a random secret, checked when the user does not exist.
const DUMMY_HASH =
  'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA==$' + Buffer.alloc(32, 7).toString('base64');
