/**
 * The registry of telephony drivers (contract §7): a gateway's `driver` names one of them.
 * Each entry checks the gateway's settings (for the gateway resource) and builds the driver
 * (for the engine).
 */
import type { DriverContext, TelephonyDriver } from './driver.ts';
import { FreeswitchDriver } from './freeswitch.ts';
import { freeswitchSettings } from './freeswitch-settings.ts';
import { SimulatorDriver, simulatorSettings } from './simulator.ts';
import { SipDriver } from './sip/driver.ts';
import { sipSettings } from './sip/settings.ts';

interface DriverEntry {
  /** Error messages about the settings; none when they are valid. */
  validate(settings: unknown): string[];
  create(settings: unknown, ctx: DriverContext): TelephonyDriver;
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
    validate: (settings) => {
      const checked = freeswitchSettings(settings);
      return checked.ok ? [] : checked.errors;
    },
    create: (settings, ctx) => new FreeswitchDriver(settings, ctx),
  },
  sip: {
    validate: (settings) => {
      const checked = sipSettings(settings);
      return checked.ok ? [] : checked.errors;
    },
    create: (settings, ctx) => new SipDriver(settings, ctx),
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
