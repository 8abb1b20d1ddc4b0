/**
 * RFC 4733 telephone-event receiving. One key press arrives as many packets sharing one RTP
 * timestamp (the event's start), the duration growing, and ends with three packets carrying
 * the E bit. The digit is reported once, at its first end packet; retransmitted ends and late
 * packets of the same event are ignored. When every end packet is lost, the digit is reported
 * when another event starts or when the event's packets stop (`flush`).
 */

const KEYS = '0123456789*#ABCD';
/** An event whose packets stopped this long ago is treated as ended. */
const END_TIMEOUT_MS = 300;
/** How many recent events are remembered to drop their retransmitted ends. */
const REMEMBERED = 8;

export interface KeyPress {
  digit: string;
  /** In ms, from the packet's duration field (8 kHz clock). */
  durationMs: number;
}

export class TelephoneEventReceiver {
  private pending: { timestamp: number; digit: string; duration: number; lastSeen: number } | undefined;
  private readonly done: number[] = [];

  constructor(private readonly emit: (key: KeyPress) => void) {}

  /** Handles one telephone-event payload; `timestamp` is the RTP timestamp, `now` monotonic ms. */
  receive(payload: Buffer, timestamp: number, now: number): void {
    if (payload.length < 4) return;
    const event = payload[0];
    const end = (payload[1] & 0x80) !== 0;
    const duration = payload.readUInt16BE(2);
    if (event >= KEYS.length || this.done.includes(timestamp)) return; // flash/tones, or already reported
    if (this.pending && this.pending.timestamp !== timestamp) this.finish();
    this.pending ??= { timestamp, digit: KEYS[event], duration, lastSeen: now };
    this.pending.duration = Math.max(this.pending.duration, duration);
    this.pending.lastSeen = now;
    if (end) this.finish();
  }

  /** Reports an event whose end packets never came. Called on the shared tick. */
  flush(now: number): void {
    if (this.pending && now - this.pending.lastSeen >= END_TIMEOUT_MS) this.finish();
  }

  private finish(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.done.push(p.timestamp);
    if (this.done.length > REMEMBERED) this.done.shift();
    this.emit({ digit: p.digit, durationMs: p.duration / 8 });
  }
}
