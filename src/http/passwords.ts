/**
 * Slow salted hashes for passwords and API tokens (contract §3): scrypt from node:crypto,
 * stored as `scrypt$N$r$p$salt$hash` so the cost can be raised later without a migration.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

export async function hashSecret(secret: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(secret, salt, KEY_LENGTH, COST);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** A new API token: `<prefix>.<secret>`; the prefix finds the row, the whole is verified. */
export function newToken(): { key: string; prefix: string } {
  const prefix = crypto.randomBytes(6).toString('hex');
  return { key: `${prefix}.${crypto.randomBytes(24).toString('base64url')}`, prefix };
}

export function randomPassword(): string {
  return crypto.randomBytes(12).toString('base64url');
}
