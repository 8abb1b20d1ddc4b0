/**
 * Write-only driver settings (contract §3: credentials never leave the server in clear). A key
 * whose name holds password, secret or token, at any depth, is shown as MASK; sending MASK back
 * on an update keeps the stored value, so a client may PUT back what it read.
 */

export const MASK = '********';

const SECRET_KEY = /password|secret|token/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A copy of `value` with every secret replaced by MASK. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = isSecretKey(key) ? MASK : maskSecrets(item);
  return out;
}

/** `given` with each secret still MASK replaced by the stored value at the same place. */
export function restoreSecrets(given: unknown, stored: unknown): unknown {
  if (!isObject(given)) return given;
  const old = isObject(stored) ? stored : {};
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(given)) {
    if (isSecretKey(key) && item === MASK) {
      if (key in old) out[key] = old[key];
    } else {
      out[key] = isObject(item) ? restoreSecrets(item, old[key]) : item;
    }
  }
  return out;
}
