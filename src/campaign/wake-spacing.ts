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

  constructor(
    private readonly ms: number,
    private readonly run: () => void,
  ) {}

  wake(): void {
    if (this.timer) return; // already due
    const wait = this.last + this.ms - Date.now();
    if (wait <= 0) return this.fire();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, wait);
    this.timer.unref();
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
