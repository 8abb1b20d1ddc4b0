/**
 * The newest part of the event log, read once per process for every live reader: the webhook
 * dispatcher's webhooks and each open event stream (issue 14). Each of them used to read the log
 * itself, so every event was read from the database, parsed and rendered as JSON once per reader:
 * with a webhook and a stream keeping up with the engine, that doubled what delivering cost the
 * machine the engine runs on.
 *
 * The tail keeps the rows of the log between two positions, (start, end], all of them, in the
 * log's order (txid, id). A reader whose position lies in that range is answered from memory,
 * filtered as readLog filters (wantedBy). One at the end makes the tail read the next window
 * from the database (readLog, so only rows already safe to read: nothing can appear behind
 * `end` later), shared by every reader waiting there. The range only grows at its end and
 * is cut at its start beyond maxRows, so it never has a hole. A reader behind `start` (a stream
 * resumed from an old Last-Event-ID, a webhook back from a failure) reads the database itself
 * until it reaches the range; one ahead of `end` (a webhook another process sent for until now)
 * moves the tail to its position.
 *
 * Rows are shared between readers: readLog renders a window of them once (render), and it is
 * joined once for each base URL asked.
 */
import type { Db } from '../db/database.ts';
import { type EventCursor, type EventFilter, type EventRow, type LogRead, readLog, wantedBy } from './events.ts';

/** Rows kept: half a second or more of an engine at full speed (~1 KB each, and their JSON). */
const MAX_ROWS = 5_000;
/** Rows a read of the database takes at most. */
const WINDOW = 1000;

export interface TailOptions {
  maxRows?: number;
  window?: number;
}

const tails = new WeakMap<Db, EventTail>();

/** The process's tail of the log of `db` (one per database handle). */
export function tailOf(db: Db): EventTail {
  let tail = tails.get(db);
  if (!tail) tails.set(db, (tail = new EventTail(db)));
  return tail;
}

/** Orders two positions in the log: negative when a is before b. */
function compare(a: EventCursor, b: EventCursor): number {
  return a.txid - b.txid || a.id - b.id;
}

export class EventTail {
  private rows: EventRow[] = [];
  /** The position just before rows[0]; undefined until the first read. */
  private start: EventCursor | undefined;
  private end: EventCursor | undefined;
  private fetching: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private rowsFetched = 0;

  private readonly maxRows: number;
  private readonly window: number;

  constructor(
    private readonly db: Db,
    options: TailOptions = {},
  ) {
    this.maxRows = options.maxRows ?? MAX_ROWS;
    this.window = options.window ?? WINDOW;
  }

  /**
   * readLog's answer (up to `window` rows walked after `after`, the wanted ones with their
   * payloads, where the reader goes on from, and whether more may follow at once), from memory
   * when it can be.
   */
  async read(after: EventCursor, filter: EventFilter, window: number): Promise<LogRead> {
    if (this.end === undefined || compare(after, this.end) > 0) this.moveTo(after);
    if (compare(after, this.start as EventCursor) < 0) return readLog(this.db, after, filter, window);
    if (compare(after, this.end as EventCursor) === 0) {
      await this.fetch();
      // Moved meanwhile (another reader ahead): this one is behind the tail now.
      if (compare(after, this.start as EventCursor) < 0) return readLog(this.db, after, filter, window);
    }
    const from = this.indexAfter(after);
    const walked = this.rows.slice(from, from + window);
    const last = walked.at(-1);
    return {
      events: walked.filter((row) => wantedBy(filter, row)),
      end: last ? { txid: last.txid, id: last.id } : after,
      // Full when the window was, or when it stopped at the tail's end: the next read looks for more.
      full: walked.length > 0,
    };
  }

  /**
   * How many rows the tail has read from the database: it grows while the log moves. A reader that
   * sees it grow between two of its reads knows more will come, and reads again on its own clock
   * rather than wait to be woken (LogMotion, wake-spacing.ts).
   */
  get fetched(): number {
    return this.rowsFetched;
  }

  /** Empties the tail and starts it at `at`. */
  private moveTo(at: EventCursor): void {
    this.rows = [];
    this.start = at;
    this.end = at;
  }

  /**
   * Reads the next window of the log after `end`. A read under way may have begun before what
   * the caller waits for committed: the caller then gets the read after it.
   */
  private fetch(): Promise<void> {
    if (!this.fetching) {
      this.fetching = this.readNext().finally(() => (this.fetching = undefined));
      return this.fetching;
    }
    this.queued ??= this.fetching.then(() => {
      this.queued = undefined;
      return this.fetch();
    });
    return this.queued;
  }

  private async readNext(): Promise<void> {
    const from = this.end as EventCursor;
    const read = await readLog(this.db, from, {}, this.window);
    this.rowsFetched += read.events.length;
    // Moved while reading (a reader ahead): what was read belongs to the old range.
    if (this.end !== from) return;
    this.rows.push(...read.events);
    this.end = read.end;
    const over = this.rows.length - this.maxRows;
    if (over > 0) {
      const cut = this.rows[over - 1];
      this.start = { txid: cut.txid, id: cut.id };
      this.rows = this.rows.slice(over);
    }
  }

  /** The index of the first row after `at` (rows.length if none). */
  private indexAfter(at: EventCursor): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.rows[mid], at) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
