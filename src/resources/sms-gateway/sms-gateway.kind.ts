/**
 * The SMS gateway kind (/rest-api/sms-gateway/, contract §3, §7, issue 6 §1): what it adds to
 * the gateways' one implementation in src/resources/gateways/ — the SMS driver registry, and a
 * random secret per gateway for its callback URLs, which admins read in its record
 * (`report_url`, `inbound_url`); SMS campaigns send through it (`sms_gateway`).
 */
import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { smsCampaigns, smsGateways } from '../../db/schema.ts';
import { DEFAULT_SMS_DRIVER, smsDriverNames, validateSmsDriverSettings } from '../../drivers/sms/index.ts';
import { callbackUrls } from '../../drivers/sms/kannel.ts';
import { baseUrl } from '../../http/links.ts';
import type { GatewayKind } from '../gateways/gateway-kind.ts';
import { findRow } from '../gateways/gateways.repository.ts';
import { gatewayFields, gatewayRecord } from '../gateways/gateways.schema.ts';

export type SmsGatewayRow = typeof smsGateways.$inferSelect;

export const smsGatewayFields = gatewayFields('the SMS driver: simulator (default), kannel, smpp or http', {});

const Optional = Type.Optional;

export const SmsGatewayRecord = gatewayRecord(
  {},
  {
    report_url: Optional(
      Type.String({ format: 'uri', description: "delivery reports; Kannel's dlr-url is this with ?id=<message id>&type=%d (the kannel driver adds it)" }),
    ),
    inbound_url: Optional(Type.String({ format: 'uri', description: "inbound messages; for Kannel's sms-service get-url append ?from=%p&to=%P&text=%a" })),
  },
);

/** A new callback secret: 32 random bytes, URL-safe. */
export function newCallbackSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export const smsGateway: GatewayKind<typeof smsGateways, typeof smsGatewayFields> = {
  resource: 'sms-gateway',
  words: { label: 'sms gateway', noun: 'SMS gateway', campaign: 'SMS campaign' },
  table: smsGateways,
  createdColumns: () => ({ callback_secret: newCallbackSecret() }),
  fields: smsGatewayFields,
  record: SmsGatewayRecord,
  /**
   * The callback URLs to give the SMS gateway (they hold the secret), under the kannel driver's
   * callback_base_url when set (how Kannel reaches us), else this request's.
   */
  present: (request, row) => {
    const settings = row.settings as Record<string, unknown>;
    const base = typeof settings.callback_base_url === 'string' ? settings.callback_base_url : baseUrl(request);
    const urls = callbackUrls(base, row);
    return { derived: { report_url: urls.report, inbound_url: urls.inbound } };
  },
  usedBy: { table: smsCampaigns, gateway: smsCampaigns.sms_gateway_id, status: smsCampaigns.status },
  drivers: { names: smsDriverNames, fallback: DEFAULT_SMS_DRIVER, validate: validateSmsDriverSettings },
};

/** The SMS gateway with this id, active or not (any user may use any gateway, contract §8). */
export function findSmsGateway(db: Db, id: number): Promise<SmsGatewayRow | undefined> {
  return findRow(smsGateways, db, id);
}
