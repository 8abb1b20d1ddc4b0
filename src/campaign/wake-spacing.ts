/**
 * Readers of the event log are woken by a notification per committed batch of events: hundreds
 * a second when an engine dials at full speed. Each wake-up costs a read of the log (and, for a
 * webhook, a lease and a transaction) whatever it finds, so wake-ups are spaced: the first runs
 * at once, those within `ms` of it run once, together, when `ms` has passed. Events wait at most
 * `ms` longer; each read takes more of them.
 */
export class SpacedWake {
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  private crowd = false;

  constructor(
    private readonly ms: number,
    private readonly run: () => void,
  ) {}

  wake(): void {
    if (this.timer) {
      this.crowd = true; // already due
      return;
    }
    const wait = this.last + this.ms - Date.now();
    if (wait <= 0) return this.fire();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, wait);
    this.timer.unref();
  }

  /** Whether a wake-up came while one was already due, since the last call: they come faster than they are spaced. */
  crowded(): boolean {
    const crowded = this.crowd;
    this.crowd = false;
    return crowded;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.last = Date.now();
    this.run();
  }
}

/**
 * Whether a reader of the log is to be woken by its notifications, or read it on its own clock.
 * A notification wakes the process that listens (~0.3 ms of CPU each on a 2-core machine), ~80 a
 * second while an engine dials; a reader spaced as above reads at most every `ms` however many
 * come, so when they come faster than that (SpacedWake.crowded) those between two reads are
 * wasted. Such a reader stops listening and reads again every `ms` while its reads find the log
 * moving, and listens again after the first that finds it still (then reads once more: what
 * committed before the listening began). The log moved when the process's tail read rows from the
 * database (EventTail.fetched), for this reader or another.
 */
export class LogMotion {
  private seen: number;
  private onOwnClock = false;

  constructor(
    private readonly tail: { readonly fetched: number },
    private readonly spaced: SpacedWake,
  ) {
    this.seen = tail.fetched;
  }

  /** Whether the reader reads on its own clock (and does not listen); else it is woken by notifications (and listens). */
  get polling(): boolean {
    return this.onOwnClock;
  }

  /**
   * Called by the reader at each of its wake-ups: whether it reads on its own clock from now on.
   * `reading`: whether it has anything to read at all (a stream open, a webhook leased); if not, it
   * is woken by notifications again.
   */
  look(reading = true): boolean {
    const crowded = this.spaced.crowded();
    const fetched = this.tail.fetched;
    const moved = fetched !== this.seen;
    this.seen = fetched;
    this.onOwnClock = reading && (this.onOwnClock ? moved : crowded);
    return this.onOwnClock;
  }
}
