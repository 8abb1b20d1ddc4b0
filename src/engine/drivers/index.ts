/**
 * The registry of telephony drivers (contract §7): a gateway's `driver` names one of them.
 * Each entry checks the gateway's settings (for the gateway resource) and builds the driver
 * (for the engine).
 */
import type { DriverContext, TelephonyDriver } from './driver.ts';
import { SimulatorDriver, simulatorSettings } from './simulator.ts';

interface DriverEntry {
  /** Error messages about the settings; none when they are valid. */
  validate(settings: unknown): string[];
  create(settings: unknown, ctx: DriverContext): TelephonyDriver;
}

/** FreeSWITCH Event Socket settings: known now so that gateways can be configured ahead. */
function freeswitchSettings(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) return ['Settings must be a JSON object.'];
  const errors: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'host' || key === 'password') {
      if (typeof value !== 'string' || value === '') errors.push(`${key}: must be a non-empty string.`);
    } else if (key === 'port') {
      if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 65535) errors.push('port: must be an integer from 1 to 65535.');
    } else {
      errors.push(`${key}: is not a setting of the freeswitch driver.`);
    }
  }
  return errors;
}

const DRIVERS: Record<string, DriverEntry> = {
  simulator: {
    validate: (settings) => {
      const checked = simulatorSettings(settings);
      return checked.ok ? [] : checked.errors;
    },
    create: (settings, ctx) => new SimulatorDriver(settings, ctx),
  },
  freeswitch: {
    validate: freeswitchSettings,
    create: () => {
      throw new Error('the freeswitch driver is not available in this build');
    },
  },
};

/** The names of the known drivers, the default first. */
export const driverNames: readonly string[] = Object.keys(DRIVERS);

export const DEFAULT_DRIVER = 'simulator';

/** Checks a gateway's settings against its driver; an unknown driver is an error too. */
export function validateDriverSettings(driver: string, settings: unknown): string[] {
  const entry = Object.hasOwn(DRIVERS, driver) ? DRIVERS[driver] : undefined;
  if (!entry) return [`Unknown driver "${driver}"; known drivers: ${driverNames.join(', ')}.`];
  return entry.validate(settings);
}

/** Builds the driver of a gateway; throws on an unknown driver or invalid settings. */
export function createDriver(gateway: { driver: string; settings: unknown }, ctx: DriverContext): TelephonyDriver {
  const entry = Object.hasOwn(DRIVERS, gateway.driver) ? DRIVERS[gateway.driver] : undefined;
  if (!entry) throw new Error(`unknown telephony driver "${gateway.driver}"`);
  return entry.create(gateway.settings, ctx);
}
