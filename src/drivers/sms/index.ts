/**
 * The registry of SMS drivers (contract §7): an SMS gateway's `driver` names one of them. Each
 * entry checks the gateway's settings (for the sms-gateway resource) and builds the driver (for
 * the SMS engine).
 */
import type { SmsDriver, SmsDriverContext, SmsGatewayInfo } from './driver.ts';
import { HttpSmsDriver, httpSmsSettings } from './http.ts';
import { KannelDriver, kannelSettings } from './kannel.ts';
import type { SettingsResult } from './settings.ts';
import { SmsSimulator, simulatorSettings } from './simulator.ts';
import { SmppDriver, smppSettings } from './smpp.ts';

interface SmsDriverEntry {
  settings(raw: unknown): SettingsResult<unknown>;
  create(gateway: SmsGatewayInfo, ctx: SmsDriverContext): SmsDriver;
}

const DRIVERS: Record<string, SmsDriverEntry> = {
  simulator: { settings: simulatorSettings, create: (gateway, ctx) => new SmsSimulator(gateway.id, gateway.settings, ctx) },
  kannel: { settings: kannelSettings, create: (gateway) => new KannelDriver(gateway) },
  smpp: { settings: smppSettings, create: (gateway, ctx) => new SmppDriver(gateway, ctx) },
  http: { settings: httpSmsSettings, create: (gateway) => new HttpSmsDriver(gateway.settings) },
};

/** The names of the known SMS drivers, the default first. */
export const smsDriverNames: readonly string[] = Object.keys(DRIVERS);

export const DEFAULT_SMS_DRIVER = 'simulator';

function entryOf(driver: string): SmsDriverEntry | undefined {
  return Object.hasOwn(DRIVERS, driver) ? DRIVERS[driver] : undefined;
}

/** Checks a gateway's settings against its driver: one message per problem, none when valid. */
export function validateSmsDriverSettings(driver: string, settings: unknown): string[] {
  const entry = entryOf(driver);
  if (!entry) return [`Unknown driver "${driver}"; known drivers: ${smsDriverNames.join(', ')}.`];
  const checked = entry.settings(settings);
  return checked.ok ? [] : checked.errors;
}

/** Builds the driver of a gateway; throws on an unknown driver or invalid settings. */
export function createSmsDriver(gateway: SmsGatewayInfo, ctx: SmsDriverContext): SmsDriver {
  const entry = entryOf(gateway.driver);
  if (!entry) throw new Error(`unknown SMS driver "${gateway.driver}"`);
  return entry.create(gateway, ctx);
}
