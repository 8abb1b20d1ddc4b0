/**
 * The gateways: voice gateways (the carriers campaigns dial through, issue 5) and SMS gateways
 * (what SMS campaigns send through, issue 6). Both kinds share their common columns and their
 * status enumeration; each adds only what is its own.
 */
import { integer, jsonb, pgTable, serial, smallint, text, varchar } from 'drizzle-orm/pg-core';
import { createdDate, updatedDate } from './columns.ts';

/** Gateway and SMS gateway `status`: only an active gateway carries calls or messages. */
export const GatewayStatus = { Inactive: 0, Active: 1 } as const;

/** The columns every gateway has, whatever its kind. */
const gatewayColumns = () => ({
  id: serial('id').primaryKey(),
  name: varchar('name', { length: 100 }).notNull().unique(),
  status: smallint('status').notNull().default(GatewayStatus.Active),
  description: text('description').notNull().default(''),
  /** The driver's name in its kind's registry, src/drivers/voice or src/drivers/sms (contract §7). */
  driver: varchar('driver', { length: 30 }).notNull().default('simulator'),
  /** Driver settings, checked against the driver; secrets are write-only in the API. */
  settings: jsonb('settings').notNull().default({}),
  created_date: createdDate(),
  updated_date: updatedDate(),
});

/** Voice gateways; the driver is simulator (default), freeswitch or sip. */
export const gateways = pgTable('gateways', {
  ...gatewayColumns(),
  /** Dial-string prefix, e.g. "sofia/gateway/carrier/". */
  gateways: varchar('gateways', { length: 500 }).notNull().default(''),
  addprefix: varchar('addprefix', { length: 60 }).notNull().default(''),
  removeprefix: varchar('removeprefix', { length: 60 }).notNull().default(''),
  originate_dial_string: varchar('originate_dial_string', { length: 500 }).notNull().default(''),
  /** At most this many calls at once through the gateway; null = no cap. */
  maximum_call: integer('maximum_call'),
});

/** SMS gateways; the driver is simulator (default), kannel, smpp or http. */
export const smsGateways = pgTable('sms_gateways', {
  ...gatewayColumns(),
  /** The secret in this gateway's delivery-report and inbound-message URLs (never shown). */
  callback_secret: varchar('callback_secret', { length: 64 }).notNull(),
});
