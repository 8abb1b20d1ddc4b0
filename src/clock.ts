/**
 * Time for the engine and its drivers, injected so that tests run a day of dialing in
 * milliseconds (house style: "Time comes from an injected clock"). The real clock and the
 * manual one used by tests live side by side.
 */
export interface Clock {
  now(): Date;
  /** Resolves after `ms` of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/**
 * A clock that moves only when told to: `advance(ms)` moves time forward and wakes every
 * sleeper whose time has come, in order.
 */
export class ManualClock implements Clock {
  private current: number;
  private sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start: Date | string = '2026-01-05T09:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.current + ms, resolve });
      this.sleepers.sort((a, b) => a.until - b.until);
    });
  }

  /** Moves time forward by `ms`, waking sleepers in time order (letting each one run). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    while (this.sleepers.length && this.sleepers[0].until <= target) {
      const next = this.sleepers.shift() as { until: number; resolve: () => void };
      this.current = Math.max(this.current, next.until);
      next.resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }

  /** Sets the time (forward only). */
  async set(time: Date | string): Promise<void> {
    await this.advance(Math.max(0, new Date(time).getTime() - this.current));
  }
}
