/**
 * An in-process cache of user rows, so that authenticating a request and reading a user cost
 * no database round trip. Every change to a user row is announced by a trigger on the channel
 * `users_changed` (migration 0007), whoever makes it (another API process, an engine billing a
 * call, the CLI, hand-written SQL); the cache LISTENs and drops the row named. While it is not
 * listening (at start, or after its connection was lost) it trusts nothing: every read goes to
 * the database and nothing is kept, and it starts empty once listening again.
 *
 * A read that started before an invalidation must not put back the row it read: every
 * invalidation bumps `version`, and a row read is kept only if `version` did not move while it
 * was being read. Writes made in this process also call `userChanged(id)` after they commit, so
 * the writer's next request sees its own change at once, before the notification arrives.
 *
 * Concurrent misses of one row share one read, if it started after the last invalidation: a
 * write to a busy user (a payment to the admin who is making requests) drops its row, and on
 * PGlite, one connection for everything, fifty requests each reading it again would queue fifty
 * reads behind the writes.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Db } from '../db/database.ts';
import { findUser, findUserByUsername, type UserRow } from '../users/users.repository.ts';

export const USERS_CHANNEL = 'users_changed';

declare module 'fastify' {
  interface FastifyInstance {
    /** The user cache of this app (see buildApp): routes read users through it. */
    userCache: UserCache;
  }
}

/** Every cache open in this process, for userChanged(). */
const openCaches = new Set<UserCache>();

/** Drops user `id` from every cache of this process: call it after a change to the row commits. */
export function userChanged(id: number): void {
  for (const cache of openCaches) cache.forget(id);
}

export class UserCache {
  private readonly rows = new Map<number, UserRow>();
  private readonly idsByName = new Map<string, number>();
  private version = 0;
  private trusted = false;
  /** Its connection was lost and has not come back (the loss was said). */
  private off = false;
  /** Reads under way, by `id:` or `name:` key, with the version at which each started. */
  private readonly reading = new Map<string, { version: number; row: Promise<UserRow | undefined> }>();
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly limit = 10_000) {}

  /** Starts listening for changes; the cache is used once the LISTEN is in place. */
  async start(database: Database, log?: FastifyBaseLogger): Promise<void> {
    openCaches.add(this);
    this.unlisten = await database.listen(USERS_CHANNEL, {
      notify: (payload) => (payload === '*' ? this.clear() : this.forget(Number(payload))),
      up: () => {
        this.clear();
        this.trusted = true;
        if (this.off) log?.info('user cache on again: the database connection is back');
        this.off = false;
      },
      // Told at each failed reconnect too: said once an outage.
      down: (reason) => {
        this.trusted = false;
        this.clear();
        if (!this.off) log?.warn(`user cache off until the database connection is back: ${reason}`);
        this.off = true;
      },
    });
  }

  async stop(): Promise<void> {
    openCaches.delete(this);
    this.trusted = false;
    this.clear();
    await this.unlisten?.();
  }

  /** The row of `username` when the cache holds it (and is trusted); no database read. */
  peekByUsername(username: string): UserRow | undefined {
    const id = this.trusted ? this.idsByName.get(username) : undefined;
    const row = id === undefined ? undefined : this.rows.get(id);
    return row?.username === username ? row : undefined;
  }

  async byId(db: Db, id: number): Promise<UserRow | undefined> {
    const row = this.trusted ? this.rows.get(id) : undefined;
    return row ?? this.read(`id:${id}`, () => findUser(db, id));
  }

  async byUsername(db: Db, username: string): Promise<UserRow | undefined> {
    return this.peekByUsername(username) ?? this.read(`name:${username}`, () => findUserByUsername(db, username));
  }

  forget(id: number): void {
    this.version += 1;
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    this.idsByName.delete(row.username);
  }

  clear(): void {
    this.version += 1;
    this.rows.clear();
    this.idsByName.clear();
  }

  /**
   * Reads a row from the database, or joins the read of it that started since the last
   * invalidation (an older one may hold what was invalidated), and keeps it unless an
   * invalidation came meanwhile.
   */
  private read(key: string, load: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    const version = this.version;
    const under = this.reading.get(key);
    // Not listening, invalidations may be missed: then every read is a read of its own.
    if (this.trusted && under?.version === version) return under.row;
    const row = load().then((found) => {
      if (found && this.trusted && version === this.version) this.keep(found);
      return found;
    });
    this.reading.set(key, { version, row });
    const done = () => {
      if (this.reading.get(key)?.row === row) this.reading.delete(key);
    };
    row.then(done, done);
    return row;
  }

  private keep(row: UserRow): void {
    if (!this.rows.has(row.id) && this.rows.size >= this.limit) {
      // Full: the oldest entry goes.
      this.forgetOldest();
    }
    this.rows.set(row.id, row);
    this.idsByName.set(row.username, row.id);
  }

  private forgetOldest(): void {
    const oldest = this.rows.values().next().value as UserRow;
    this.rows.delete(oldest.id);
    if (this.idsByName.get(oldest.username) === oldest.id) this.idsByName.delete(oldest.username);
  }
}
