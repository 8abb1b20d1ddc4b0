/**
 * The webhook signature (issue 14 §2): `Dialer-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>" with the webhook's secret>`. A receiver recomputes it over the raw body and
 * refuses a mismatch or an old `t` (replays).
 */
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'dialer-signature';
export const EVENT_ID_HEADER = 'dialer-event-id';

/** The header for `body`, as sent (a delivery signs and sends the same bytes: encoded once). */
export function sign(secret: string, body: string | Buffer, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Whether `header` signs `body` with `secret`, no older than `toleranceSeconds`. */
export function verify(secret: string, body: string | Buffer, header: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(crypto.createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
