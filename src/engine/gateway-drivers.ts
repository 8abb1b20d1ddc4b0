/**
 * One driver per gateway (voice or SMS), made on first use through the driver registry and made
 * again when the gateway's row changes (settings edited while running). The old driver keeps
 * what it has in flight until close(); new calls and messages use the new one.
 */
import type { gateways, smsGateways } from '../db/schema.ts';
import type { DriverContext, TelephonyDriver } from '../drivers/voice/driver.ts';
import { createDriver } from '../drivers/voice/index.ts';
import type { SmsDriver, SmsDriverContext } from '../drivers/sms/driver.ts';
import { createSmsDriver } from '../drivers/sms/index.ts';

type GatewayRow = typeof gateways.$inferSelect;
type SmsGatewayRow = typeof smsGateways.$inferSelect;

interface VersionedRow {
  id: number;
  driver: string;
  updated_date: string;
  settings: unknown;
}

export interface DriversPerGateway<Row, Driver> {
  driverOf(gateway: Row): Driver;
  /** Ends what every driver has in flight and releases them (SMPP unbinds, timers stop). */
  close(): Promise<void>;
}

function driversPerGateway<Row extends VersionedRow, Driver extends { close(): Promise<void> }>(
  make: (gateway: Row) => Driver,
): DriversPerGateway<Row, Driver> {
  const made = new Map<number, { version: string; driver: Driver }>();
  const retired: Driver[] = [];
  return {
    driverOf(gateway) {
      const version = `${gateway.driver}|${gateway.updated_date}|${JSON.stringify(gateway.settings)}`;
      const known = made.get(gateway.id);
      if (known?.version === version) return known.driver;
      if (known) retired.push(known.driver);
      const driver = make(gateway);
      made.set(gateway.id, { version, driver });
      return driver;
    },
    async close() {
      await Promise.all([...retired, ...[...made.values()].map((m) => m.driver)].map((d) => d.close()));
      made.clear();
      retired.length = 0;
    },
  };
}

export type GatewayDrivers = DriversPerGateway<GatewayRow, TelephonyDriver>;
export type SmsGatewayDrivers = DriversPerGateway<SmsGatewayRow, SmsDriver>;

export function gatewayDrivers(ctx: DriverContext): GatewayDrivers {
  return driversPerGateway((gateway: GatewayRow) => createDriver(gateway, ctx));
}

/** The SMS drivers hand delivery reports and inbound messages to `ctx.events` (sms-events.ts). */
export function smsGatewayDrivers(ctx: SmsDriverContext): SmsGatewayDrivers {
  return driversPerGateway((gateway: SmsGatewayRow) => createSmsDriver({ ...gateway, settings: gateway.settings as Record<string, unknown> }, ctx));
}
