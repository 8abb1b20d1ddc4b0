/**
 * Turns a burst of events into few refetches (api/events.tsx). Each event names the resources it
 * makes stale; at most once per `intervalMs` the stale ones are invalidated together. A resource
 * whose queries are still fetching is kept for the next round instead of cancelling that fetch:
 * under a steady stream a slow list still completes, and after the last event there is always one
 * fetch that started after it. No React and no DOM here, so node:test drives it with fake timers
 * (test/console-batcher.test.ts).
 */

export interface BatchTarget {
  /** True while a query of this resource is fetching. */
  isFetching(resource: string): boolean;
  /** Marks the resource's queries stale (the shown ones refetch). */
  invalidate(resource: string): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export class InvalidationBatcher<E> {
  private stale = new Set<string>();
  private events: E[] = [];
  private timer: unknown;

  constructor(
    private readonly target: BatchTarget,
    private readonly intervalMs: number,
    /** Called once per round with the round's events (for pages that listen to them). */
    private readonly onEvents: (events: E[]) => void = () => {},
    private readonly timers: Timers = globalThis,
  ) {}

  /** An event arrived that makes `resources` stale. */
  add(event: E, resources: readonly string[]): void {
    for (const r of resources) this.stale.add(r);
    this.events.push(event);
    this.schedule();
  }

  /** Stops the pending round (the stream closed). */
  stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer ??= this.timers.setTimeout(() => this.flush(), this.intervalMs);
  }

  private flush(): void {
    this.timer = undefined;
    const waiting = new Set<string>();
    for (const resource of this.stale) {
      if (this.target.isFetching(resource)) waiting.add(resource);
      else this.target.invalidate(resource);
    }
    this.stale = waiting;
    const events = this.events;
    this.events = [];
    if (events.length) this.onEvents(events);
    if (this.stale.size) this.schedule();
  }
}
