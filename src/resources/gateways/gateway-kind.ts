/**
 * Voice gateways (/rest-api/gateway/) and SMS gateways (/rest-api/sms-gateway/) are one
 * resource in two kinds: the same rules (admins write, anyone reads url and name, secrets are
 * write-only, a driver and its settings are checked against the kind's driver registry, names
 * are unique, a gateway that campaigns use is not deleted). This folder holds that one
 * implementation; a kind, defined in its own folder (src/resources/gateway/gateway.kind.ts,
 * src/resources/sms-gateway/sms-gateway.kind.ts), says only what differs: its table, driver
 * registry, own columns and fields, what its record adds, the campaigns that use it, and its
 * words. The SMS gateway's callback routes stay in its own folder.
 */
import type { TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { gateways, smsGateways } from '../../db/schema.ts';
import type { Fields, Parsed } from '../../http/fields.ts';
import type { CommonGatewayFields } from './gateways.schema.ts';

export type GatewayTable = typeof gateways | typeof smsGateways;
export type RowOf<T extends GatewayTable> = T['$inferSelect'];
export type ValuesOf<T extends GatewayTable> = T['$inferInsert'];

/** A kind's driver registry (src/drivers/voice or src/drivers/sms, contract §7). */
export interface DriverRegistry {
  /** The known drivers' names, the default first. */
  names: readonly string[];
  /** The driver of a gateway created without one. */
  fallback: string;
  /** The settings' problems for this driver (an unknown driver is one); none when valid. */
  validate(driver: string, settings: unknown): string[];
}

export interface GatewayKind<T extends GatewayTable = GatewayTable, F extends Fields = Fields> {
  /** The path segment under /rest-api/ and the OpenAPI tag: `gateway`, `sms-gateway`. */
  resource: string;
  /**
   * Its name in field and CLI errors (`label`: `gateway`, `sms gateway`), in conflicts (`noun`:
   * `gateway`, `SMS gateway`) and that of the campaigns using it (`campaign`, `SMS campaign`).
   */
  words: { label: string; noun: string; campaign: string };
  table: T;
  /** The kind's own columns that an input sets (undefined: unchanged). */
  ownColumns?(input: Parsed<F>): Partial<ValuesOf<T>>;
  /** Columns set once, when a gateway is created (the SMS gateway's callback secret). */
  createdColumns?(): Partial<ValuesOf<T>>;
  /** The request fields: the common ones (gatewayFields) with the kind's own. */
  fields: F & CommonGatewayFields;
  /** The record (gatewayRecord); its property order is the response's. */
  record: TObject;
  /**
   * What the admin's view adds to the common fields: `config`, the kind's own configuration
   * (before `settings`), and `derived`, what is worked out from it (after `settings`).
   */
  present(request: FastifyRequest, row: RowOf<T>): { config?: Record<string, unknown>; derived?: Record<string, unknown> };
  /** The campaigns that dial or send through a gateway: their table and its gateway and status columns. */
  usedBy: { table: PgTable; gateway: PgColumn; status: PgColumn };
  drivers: DriverRegistry;
}
