/**
 * An event's public id (issue 14): `evt_`, then its transaction's id and its row id in base 36,
 * zeros in front, so ids sort as text in the log's order (txid, id) and decode to a reader's
 * position. Every id is written here: the API's, and each event's as it is sent.
 *
 * A module of its own, without the log's database code, so a receiver's bench process
 * (bench/event-readers.ts) can read ids without loading it.
 */

/** A reader's position in the log: the last event it has seen (0, 0 before the first). */
export interface EventCursor {
  txid: number;
  id: number;
}

export const ID_PREFIX = 'evt_';
export const TXID_WIDTH = 11; // base 36: up to 36^11 ≈ 1.3e17 transactions
export const ROW_WIDTH = 12;
/** An id's length in bytes (ASCII). */
export const ID_BYTES = ID_PREFIX.length + TXID_WIDTH + ROW_WIDTH;

const PREFIX = Buffer.from(ID_PREFIX, 'latin1');
const DIGITS_36 = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz', 'latin1');

/** The event's public id. */
export function eventId(row: EventCursor): string {
  const out = Buffer.allocUnsafe(ID_BYTES);
  putEventId(out, 0, row);
  return out.toString('latin1');
}

/** Writes the event's id at `to`; returns where it ends. */
export function putEventId(out: Buffer, to: number, row: EventCursor): number {
  for (let i = 0; i < PREFIX.length; i++) out[to + i] = PREFIX[i];
  return putBase36(out, putBase36(out, to + PREFIX.length, row.txid, TXID_WIDTH), row.id, ROW_WIDTH);
}

/** The position an event id stands for; undefined if it is not one of ours. */
export function cursorOf(id: string): EventCursor | undefined {
  const m = ID_PATTERN.exec(id);
  if (!m) return undefined;
  return { txid: parseInt(m[1], 36), id: parseInt(m[2], 36) };
}
const ID_PATTERN = new RegExp(`^${ID_PREFIX}([0-9a-z]{${TXID_WIDTH}})([0-9a-z]{${ROW_WIDTH}})$`);

/** Writes `value` in base 36 as `width` digits, zeros in front, at `to`; returns where it ends. */
function putBase36(out: Buffer, to: number, value: number, width: number): number {
  // The quotient and the remainder without `%`: on a double (ids past 2^31 are), it is a call to
  // fmod, and this ran for each digit of each event delivered (7 % of a delivering server's CPU).
  // Exact for every safe integer: the quotient stays below 2^48, where doubles are 1/16 apart.
  let i = to + width - 1;
  for (; value > 0 && i >= to; i--) {
    const q = Math.floor(value / 36);
    out[i] = DIGITS_36[value - q * 36];
    value = q;
  }
  for (; i >= to; i--) out[i] = DIGITS_36[0];
  return to + width;
}
