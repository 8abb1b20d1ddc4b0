/**
 * LISTEN on PostgreSQL: one connection of its own (outside the pool) for every channel and every
 * listener of a process. PostgreSQL wakes each listening session on every NOTIFY committed in
 * the database, whatever its channel; a server held three (the user cache's, the webhook
 * dispatcher's and the live streams'), each woken some 80 times a second while the engine ran.
 *
 * When the connection is lost every listener is told (down) and it reconnects with backoff
 * (250 ms doubling to 5 s), LISTENs again on every channel, and tells every listener (up): what
 * was sent meanwhile may have been missed. Its sessions are named `campaign-dialer listen` in
 * pg_stat_activity. Changes to the connection (connect, LISTEN, UNLISTEN, end) run one at a time.
 */
import pg from 'pg';
import type { Listener } from './database.ts';

export const LISTEN_APPLICATION_NAME = 'campaign-dialer listen';

export class PostgresListening {
  private readonly channels = new Map<string, Set<Listener>>();
  /** The connection while it is up: it LISTENs on every channel of `channels` (LISTEN and UNLISTEN are idempotent). */
  private live: pg.Client | undefined;
  /** Each change to the connection runs after the one before. */
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private delay = 250;
  private closed = false;

  constructor(private readonly url: string) {}

  /** Listens on `channel` until the returned function is called; resolves once listening, or once the first attempt failed (the listener was told down, and up when it is listening). */
  async add(channel: string, listener: Listener): Promise<() => Promise<void>> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    if (this.closed) throw new Error('the database is closed');
    const set = this.channels.get(channel) ?? new Set<Listener>();
    const first = set.size === 0;
    this.channels.set(channel, set);
    set.add(listener);
    await this.serially(async () => {
      if (!this.live) return this.connect(); // tells every listener up, this one too
      if (first) await this.live.query(`LISTEN ${channel}`);
      listener.up();
    });
    return () => this.remove(channel, listener);
  }

  /** Ends the connection: the database closes. */
  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    await this.serially(async () => this.end());
  }

  private async remove(channel: string, listener: Listener): Promise<void> {
    const set = this.channels.get(channel);
    if (!set?.delete(listener) || set.size > 0) return;
    this.channels.delete(channel);
    await this.serially(async () => {
      if (this.channels.has(channel)) return; // listened to again meanwhile
      if (this.channels.size === 0) return this.end();
      await this.live?.query(`UNLISTEN ${channel}`);
    });
  }

  private serially(change: () => Promise<void>): Promise<void> {
    const run = this.queue.then(change).catch((err: Error) => this.lost(err.message));
    this.queue = run;
    return run;
  }

  /** Connects and LISTENs on every channel; a failure is a loss (below). */
  private async connect(): Promise<void> {
    clearTimeout(this.timer);
    if (this.closed || this.live || this.channels.size === 0) return;
    const client = new pg.Client({ connectionString: this.url, application_name: LISTEN_APPLICATION_NAME });
    client.on('error', (err) => this.lost(err.message, client));
    client.on('end', () => this.lost('connection closed', client));
    client.on('notification', (message) => {
      for (const listener of this.channels.get(message.channel) ?? []) listener.notify(message.payload ?? '');
    });
    this.live = client;
    await client.connect();
    for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    if (this.live !== client) return; // lost meanwhile: told, and retrying
    this.delay = 250;
    for (const set of this.channels.values()) for (const listener of set) listener.up();
  }

  /**
   * The connection (`client`, or the live one) is gone: every listener is told, and it connects
   * again after the delay. Said once a connection.
   */
  private lost(reason: string, client = this.live): void {
    if (!client || this.live !== client) return;
    this.live = undefined;
    client.end().catch(() => {});
    if (this.closed || this.channels.size === 0) return;
    for (const set of this.channels.values()) for (const listener of set) listener.down(reason);
    this.timer = setTimeout(() => void this.serially(() => this.connect()), this.delay);
    this.timer.unref();
    this.delay = Math.min(this.delay * 2, 5000);
  }

  private async end(): Promise<void> {
    clearTimeout(this.timer);
    const client = this.live;
    this.live = undefined;
    await client?.end().catch(() => {});
  }
}
