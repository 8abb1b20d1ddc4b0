/**
 * Checking an SMS gateway's `settings` against its driver: each driver lists its settings with a
 * check, whether it is required and its default. Messages name the setting (`port: must be …`),
 * so the gateway resource answers one clear 400 line per problem.
 */

/** A problem with a value, or null when it is fine. */
export type Check = (value: unknown) => string | null;

export interface SettingSpec {
  check: Check;
  required?: boolean;
  default?: unknown;
}

export type SettingsResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** Checks raw settings (null/undefined = {}) against `specs` and fills in the defaults. */
export function checkSettings<T>(driver: string, specs: Record<string, SettingSpec>, raw: unknown): SettingsResult<T> {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, errors: ['Settings must be a JSON object.'] };
  const given = raw as Record<string, unknown>;
  const errors: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    const problem = spec ? spec.check(value) : `is not a setting of the ${driver} driver.`;
    if (problem) errors.push(`${key}: ${problem}`);
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (spec.required && !(key in given)) errors.push(`${key}: this setting is required by the ${driver} driver.`);
  }
  if (errors.length) return { ok: false, errors };
  const value: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) if (spec.default !== undefined) value[key] = spec.default;
  return { ok: true, value: { ...value, ...given } as T };
}

export const checks = {
  rate: ((v) => (typeof v === 'number' && v >= 0 && v <= 1 ? null : 'must be a number between 0 and 1.')) as Check,
  text: ((v) => (typeof v === 'string' && v !== '' ? null : 'must be a non-empty string.')) as Check,
  /** A string, possibly empty. */
  anyText: ((v) => (typeof v === 'string' ? null : 'must be a string.')) as Check,
  integer:
    (min: number, max: number): Check =>
    (v) =>
      Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? null : `must be an integer from ${min} to ${max}.`,
  httpUrl: ((v) => {
    if (typeof v !== 'string') return 'must be an http:// or https:// URL.';
    try {
      const url = new URL(v);
      return url.protocol === 'http:' || url.protocol === 'https:' ? null : 'must be an http:// or https:// URL.';
    } catch {
      return 'must be an http:// or https:// URL.';
    }
  }) as Check,
  regex: ((v) => {
    if (typeof v !== 'string' || v === '') return 'must be a regular expression (a non-empty string).';
    try {
      new RegExp(v);
      return null;
    } catch (err) {
      return `is not a valid regular expression: ${(err as Error).message}.`;
    }
  }) as Check,
  oneOf:
    (...values: string[]): Check =>
    (v) =>
      typeof v === 'string' && values.includes(v) ? null : `must be one of ${values.join(', ')}.`,
};
