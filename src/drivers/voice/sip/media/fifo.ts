/**
 * A bounded queue of samples between two relayed sessions. When the writer's clock runs ahead
 * of the reader's (two carriers never agree exactly), the oldest samples are dropped, so the
 * delay stays under `capacity` samples instead of growing for the whole call.
 */
export class SampleFifo {
  private readonly buf: Int16Array;
  private start = 0;
  private length = 0;

  constructor(capacity: number) {
    this.buf = new Int16Array(capacity);
  }

  get available(): number {
    return this.length;
  }

  write(pcm: Int16Array): void {
    for (let i = 0; i < pcm.length; i++) {
      if (this.length === this.buf.length) {
        this.start = (this.start + 1) % this.buf.length;
        this.length--;
      }
      this.buf[(this.start + this.length) % this.buf.length] = pcm[i];
      this.length++;
    }
  }

  /** Fills `out` with the oldest samples, zero-padded when fewer are queued. */
  read(out: Int16Array): void {
    const n = Math.min(out.length, this.length);
    for (let i = 0; i < n; i++) out[i] = this.buf[(this.start + i) % this.buf.length];
    out.fill(0, n);
    this.start = (this.start + n) % this.buf.length;
    this.length -= n;
  }

  clear(): void {
    this.start = 0;
    this.length = 0;
  }
}
