/**
 * The one timer that sends RTP for every session of a media engine. It ticks every 20 ms on a
 * fixed grid of monotonic time (each tick scheduled against the grid, not "20 ms after the
 * last one", so timer lateness does not add up); on each tick every session sends the frames
 * that have come due by then. 500 calls cost 50 timer callbacks a second, not 25 000.
 */
import { performance } from 'node:perf_hooks';
import { FRAME_MS } from './g711.ts';

export interface Paced {
  /** Sends whatever is due at monotonic time `now` (ms). */
  pump(now: number): void;
}

export class Pacer {
  private readonly members = new Set<Paced>();
  private timer: NodeJS.Timeout | undefined;
  private nextTick = 0;

  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  /** Monotonic ms. */
  now(): number {
    return performance.now();
  }

  /** The grid time of the coming tick; a session starting now times its first frame on it. */
  get upcoming(): number {
    return this.timer ? this.nextTick : this.now();
  }

  add(member: Paced): void {
    this.members.add(member);
    if (!this.timer) {
      this.nextTick = this.now();
      this.timer = setTimeout(() => this.tick(), 0);
    }
  }

  delete(member: Paced): void {
    this.members.delete(member);
    if (this.members.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = this.now();
    for (const member of this.members) {
      try {
        member.pump(now);
      } catch (err) {
        this.onError(err);
      }
    }
    if (this.members.size === 0) {
      this.timer = undefined;
      return;
    }
    do this.nextTick += FRAME_MS;
    while (this.nextTick <= now);
    this.timer = setTimeout(() => this.tick(), Math.max(0, this.nextTick - this.now()));
  }
}
