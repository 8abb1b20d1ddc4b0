/**
 * RTP packets (RFC 3550 §5.1) and the receiver's statistics (§6.4.1 loss, §A.8 interarrival
 * jitter). Only what G.711 and telephone-event need: no CSRC writing, no header extensions.
 */

export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

const HEADER = 12;

/** Builds a version-2 RTP packet into one Buffer (header + payload). */
export function buildRtp(p: RtpPacket): Buffer {
  const buf = Buffer.allocUnsafe(HEADER + p.payload.length);
  buf[0] = 0x80;
  buf[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  buf.writeUInt16BE(p.sequence & 0xffff, 2);
  buf.writeUInt32BE(p.timestamp >>> 0, 4);
  buf.writeUInt32BE(p.ssrc >>> 0, 8);
  p.payload.copy(buf, HEADER);
  return buf;
}

/** Parses an RTP packet; undefined for anything that is not RTP v2 (RTCP, STUN, junk). */
export function parseRtp(buf: Buffer): RtpPacket | undefined {
  if (buf.length < HEADER || buf[0] >> 6 !== 2) return undefined;
  const payloadType = buf[1] & 0x7f;
  // RTCP shares the port when rtcp-mux is used: its packet types 200–204 read as PT 72–76.
  if (payloadType >= 72 && payloadType <= 76) return undefined;
  let start = HEADER + (buf[0] & 0x0f) * 4;
  if (buf[0] & 0x10) {
    if (buf.length < start + 4) return undefined;
    start += 4 + buf.readUInt16BE(start + 2) * 4;
  }
  let end = buf.length;
  if (buf[0] & 0x20) end -= buf[buf.length - 1];
  if (end < start) return undefined;
  return {
    payloadType,
    marker: (buf[1] & 0x80) !== 0,
    sequence: buf.readUInt16BE(2),
    timestamp: buf.readUInt32BE(4),
    ssrc: buf.readUInt32BE(8),
    payload: buf.subarray(start, end),
  };
}

/**
 * Per-source receive statistics. `received` counts packets; `lost` is expected minus received
 * (RFC 3550 A.3, may go negative with duplicates, clamped at 0); jitter is A.8's running
 * estimate in timestamp units, reported in ms.
 */
export class ReceiveStats {
  /** Packets received from every source so far. */
  received = 0;
  private sourceReceived = 0;
  private priorLost = 0;
  private ssrc: number | undefined;
  private baseSeq = 0;
  private maxSeq = 0;
  private cycles = 0;
  private transit: number | undefined;
  private jitter = 0;

  constructor(private readonly clockRate = 8000) {}

  /** Records one packet; `arrivalMs` is a monotonic time. Returns false for a stale duplicate/reorder. */
  update(p: RtpPacket, arrivalMs: number): boolean {
    if (this.ssrc !== p.ssrc) {
      // A new source (re-INVITE, relay switch): start counting afresh.
      this.priorLost += this.sourceLost;
      this.sourceReceived = 0;
      this.ssrc = p.ssrc;
      this.baseSeq = p.sequence;
      this.maxSeq = p.sequence;
      this.cycles = 0;
      this.transit = undefined;
    }
    this.received++;
    this.sourceReceived++;
    const delta = (p.sequence - this.maxSeq) & 0xffff;
    const inOrder = delta > 0 && delta < 0x8000;
    if (inOrder) {
      if (p.sequence < this.maxSeq) this.cycles += 0x10000;
      this.maxSeq = p.sequence;
    }
    const arrival = (arrivalMs * this.clockRate) / 1000;
    const transit = arrival - p.timestamp;
    if (this.transit !== undefined) {
      const d = Math.abs(transit - this.transit);
      this.jitter += (d - this.jitter) / 16;
    }
    this.transit = transit;
    return inOrder || this.sourceReceived === 1;
  }

  private get sourceLost(): number {
    if (this.ssrc === undefined) return 0;
    return Math.max(0, this.cycles + this.maxSeq - this.baseSeq + 1 - this.sourceReceived);
  }

  get lost(): number {
    return this.priorLost + this.sourceLost;
  }

  get jitterMs(): number {
    return (this.jitter * 1000) / this.clockRate;
  }
}
