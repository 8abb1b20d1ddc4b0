/**
 * The carrier's limits as the driver keeps them: call setups per second (never exceeded), and
 * the pause a proxy asked for with `503 Retry-After`.
 */

/**
 * Spaces call setups at least 1000/cps ms apart, measured on the moments they were really let
 * go (not on when their timers were due), so no window of one second ever holds more than
 * `cps` of them however late a timer fires. Setups queue in order.
 */
export class SetupPacer {
  private tail: Promise<void> = Promise.resolve();
  private last = -Infinity;

  constructor(
    private readonly cps: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when the next setup may be sent. */
  acquire(): Promise<void> {
    if (this.cps <= 0) return Promise.resolve();
    const gap = 1000 / this.cps;
    const turn = this.tail.then(async () => {
      for (let wait = this.last + gap - this.now(); wait > 0; wait = this.last + gap - this.now()) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
      }
      this.last = this.now();
    });
    this.tail = turn;
    return turn;
  }
}

/** Proxies paused by `503 Retry-After`, until when (ms since the epoch). */
export class ProxyPauses {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  pause(proxy: string, seconds: number): void {
    this.until.set(proxy, Math.max(this.until.get(proxy) ?? 0, this.now() + seconds * 1000));
  }

  /** ms until the proxy may be used again (0 = now). */
  remaining(proxy: string): number {
    return Math.max(0, (this.until.get(proxy) ?? 0) - this.now());
  }

  /** When every one of `proxies` is paused, the moment the first becomes free again; else null. */
  allPausedUntil(proxies: string[]): Date | null {
    const left = proxies.map((p) => this.remaining(p));
    return left.every((ms) => ms > 0) ? new Date(this.now() + Math.min(...left)) : null;
  }
}
