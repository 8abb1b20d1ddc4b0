/**
 * The simulator's settings (a gateway's `settings` when its driver is `simulator`), with
 * defaults, checked once when the gateway is written and again when the driver is built.
 */

export interface SimulatorSettings {
  /** Share of calls answered. */
  answer_rate: number;
  /** Share of calls answered USER_BUSY (17). */
  busy_rate: number;
  /** Share of calls that ring out (NO_ANSWER 19 at the timeout). The rest fail (21, 34, 41). */
  noanswer_rate: number;
  /** Share of answered calls that are answering machines. */
  machine_rate: number;
  /** Seconds of ringing before the answer, [min, max]. */
  ring_seconds: [number, number];
  /** Seconds a person stays on the line unless the IVR hangs up first, [min, max]. */
  talk_seconds: [number, number];
  /** 'random' = press one of the IVR's expected keys; else these digits, consumed in order. */
  dtmf: string;
  /** Seed of the random draws: the same seed and call id give the same call. */
  seed: number;
  /** Simulated seconds per clock second (1 = real time, 60 = a minute per second). */
  time_scale: number;
}

export const simulatorDefaults: Readonly<SimulatorSettings> = Object.freeze<SimulatorSettings>({
  answer_rate: 0.7,
  busy_rate: 0.1,
  noanswer_rate: 0.1,
  machine_rate: 0.1,
  ring_seconds: [2, 8],
  talk_seconds: [5, 30],
  dtmf: 'random',
  seed: 1,
  time_scale: 1,
});

type Check = (value: unknown) => string | null;

const rate: Check = (v) => (typeof v === 'number' && v >= 0 && v <= 1 ? null : 'must be a number between 0 and 1.');
const range: Check = (v) =>
  Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) && v[0] <= v[1]
    ? null
    : 'must be [min, max]: two numbers of seconds, 0 ≤ min ≤ max.';

const CHECKS: Record<keyof SimulatorSettings, Check> = {
  answer_rate: rate,
  busy_rate: rate,
  noanswer_rate: rate,
  machine_rate: rate,
  ring_seconds: range,
  talk_seconds: range,
  dtmf: (v) =>
    typeof v === 'string' && (v === 'random' || /^[0-9*#]*$/.test(v)) ? null : 'must be "random" or a string of keys (0-9, *, #).',
  seed: (v) => (Number.isSafeInteger(v) ? null : 'must be an integer.'),
  time_scale: (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? null : 'must be a number greater than 0.'),
};

/** Checks raw settings (null/undefined = all defaults) and fills in the defaults. */
export function simulatorSettings(raw: unknown): { ok: true; value: SimulatorSettings } | { ok: false; errors: string[] } {
  if (raw === undefined || raw === null) return { ok: true, value: { ...simulatorDefaults } };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, errors: ['Settings must be a JSON object.'] };
  const given = raw as Record<string, unknown>;
  const errors: string[] = [];
  for (const [key, value] of Object.entries(given)) {
    const check = CHECKS[key as keyof SimulatorSettings];
    const problem = check ? check(value) : 'is not a setting of the simulator driver.';
    if (problem) errors.push(`${key}: ${problem}`);
  }
  if (errors.length) return { ok: false, errors };
  const value = { ...simulatorDefaults, ...given } as SimulatorSettings;
  return fitRates(value, given) ? { ok: true, value } : { ok: false, errors: [`${RATES.join(' + ')} must not exceed 1.`] };
}

const RATES = ['answer_rate', 'busy_rate', 'noanswer_rate'] as const;

/**
 * Makes the outcome rates add up to at most 1: the rates left at their defaults shrink to share
 * what the given ones leave (answer_rate 0.9 alone → busy and no-answer 0.05 each). False when
 * the given rates alone exceed 1.
 */
function fitRates(value: SimulatorSettings, given: Record<string, unknown>): boolean {
  const total = (keys: readonly (typeof RATES)[number][]) => keys.reduce((sum, key) => sum + value[key], 0);
  if (total(RATES) <= 1 + 1e-9) return true;
  const fixed = RATES.filter((key) => key in given);
  const defaulted = RATES.filter((key) => !(key in given));
  const room = 1 - total(fixed);
  if (room < -1e-9) return false;
  const scale = Math.max(0, room) / total(defaulted);
  for (const key of defaulted) value[key] *= scale;
  return true;
}
