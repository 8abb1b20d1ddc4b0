/**
 * One telephony driver per gateway, made on first use through the driver registry and made again
 * when the gateway's row changes (settings edited while running).
 */
import type { gateways } from '../db/schema.ts';
import type { DriverContext, TelephonyDriver } from './drivers/driver.ts';
import { createDriver } from './drivers/index.ts';

type GatewayRow = typeof gateways.$inferSelect;

export interface GatewayDrivers {
  driverOf(gateway: GatewayRow): TelephonyDriver;
  /** Ends every call of every driver and releases them. */
  close(): Promise<void>;
}

export function gatewayDrivers(ctx: DriverContext): GatewayDrivers {
  const made = new Map<number, { version: string; driver: TelephonyDriver }>();
  const retired: TelephonyDriver[] = [];
  return {
    driverOf(gateway) {
      const version = `${gateway.driver}|${gateway.updated_date}|${JSON.stringify(gateway.settings)}`;
      const known = made.get(gateway.id);
      if (known?.version === version) return known.driver;
      // The old driver keeps its calls in flight until close(); new calls use the new one.
      if (known) retired.push(known.driver);
      const driver = createDriver(gateway, ctx);
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
