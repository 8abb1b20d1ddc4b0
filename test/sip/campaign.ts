/**
 * Runs a campaign through the engine and a real `sip` gateway driver, on the real clock, to its
 * end: what the sip driver's tests (sip.test.ts, amd.test.ts, transfer.test.ts) share.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../src/db/database.ts';
import { SubscriberStatus } from '../../src/db/schema.ts';
import { systemClock } from '../../src/clock.ts';
import { type Scenario, scenario } from '../../src/engine/engine.fixtures.ts';
import { Engine } from '../../src/engine/engine.ts';
import { gatewayDrivers } from '../../src/engine/gateway-drivers.ts';
import { testDatabase } from '../helpers.ts';

/**
 * A SIP test file's scratch directory and fresh database. What is pushed on `stops` (sipp,
 * Kamailio, test phones) is stopped after the file, in order, and the directory removed.
 */
export async function sipTestFile(prefix: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const database = await testDatabase();
  const stops: (() => unknown)[] = [];
  after(async () => {
    for (const stop of stops) await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { dir, database, db: database.db, stops };
}

export type CampaignValues = NonNullable<Parameters<typeof scenario>[1]>['campaign'];

export interface SipCampaign {
  numbers: string[];
  /** The sip gateway's settings (bind_address and bind_port default to loopback, any port). */
  settings: Record<string, unknown>;
  campaign?: CampaignValues;
  /** Give up waiting for the subscribers to be final after this long. */
  seconds: number;
  /** The gateway's `gateways` field (failover proxies). */
  gateways?: string;
  /** Runs once the campaign exists, before the engine dials (e.g. to attach an audio file). */
  prepare?: (s: Scenario) => Promise<void>;
}

/**
 * Makes a started campaign on a sip gateway (the user pays 0.6 a minute, billed by the second)
 * and runs the engine until every subscriber is final (or `seconds` pass); `dataDir` is the
 * engine's DATA_DIR. Returns the campaign's id.
 */
export async function runSipCampaign(db: Db, dataDir: string, run: SipCampaign): Promise<number> {
  const s = await scenario(db, {
    numbers: run.numbers,
    user: { balance: '100', call_rate: '0.6' },
    gateway: { driver: 'sip', settings: { bind_address: '127.0.0.1', bind_port: 0, ...run.settings }, gateways: run.gateways ?? '' },
    campaign: {
      end_when_done: true,
      calltimeout: 4,
      startingdate: new Date(Date.now() - 3600_000).toISOString(),
      expirationdate: new Date(Date.now() + 86_400_000).toISOString(),
      ...run.campaign,
    },
  });
  await run.prepare?.(s);
  const drivers = gatewayDrivers({ clock: systemClock, dataDir });
  const engine = new Engine({
    db,
    log: { info: () => {}, warn: () => {}, error: (m) => console.error(m) },
    clock: systemClock,
    drivers: (gateway) => drivers.driverOf(gateway),
    config: { timeZone: 'UTC', billingIncrement: 1 },
    databaseKind: 'postgres',
  });
  try {
    const until = Date.now() + run.seconds * 1000;
    while (Date.now() < until) {
      await engine.runOnce();
      const [left] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from subscribers where campaign_id = ${s.campaignId} and status in (${SubscriberStatus.Pending}, ${SubscriberStatus.InProcess})`);
      if (left.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await engine.settle();
    await engine.runOnce(); // ends the campaign (end_when_done)
  } finally {
    await drivers.close();
  }
  return s.campaignId;
}
