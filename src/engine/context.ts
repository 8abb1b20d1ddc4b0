/**
 * What every engine task is given (house style: a task is a plain async function with
 * {db, log, clock, drivers}).
 */
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { gateways, smsGateways } from '../db/schema.ts';
import type { Clock } from '../clock.ts';
import type { TelephonyDriver } from '../drivers/voice/driver.ts';
import type { SmsDriver } from '../drivers/sms/driver.ts';

export interface EngineLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface EngineContext {
  db: Db;
  log: EngineLog;
  clock: Clock;
  /** The driver of a gateway (one per gateway, made on first use). */
  drivers: (gateway: typeof gateways.$inferSelect) => TelephonyDriver;
  /** The SMS driver of an SMS gateway (one per gateway); without it the engine sends no SMS. */
  smsDrivers?: (gateway: typeof smsGateways.$inferSelect) => SmsDriver;
  config: Pick<Config, 'timeZone' | 'billingIncrement'> & Partial<Pick<Config, 'webhookAllowPrivate' | 'dataDir' | 'contactCaps' | 'callingHours' | 'smtpUrl' | 'mailFrom' | 'defaultCountry'>>;
  /** This engine process's id, written on its callrequests (crash recovery). */
  engineId: string;
}
