/**
 * The voice gateway kind (/rest-api/gateway/, contract §3, §7, issue 5 §1): what it adds to the
 * gateways' one implementation in src/resources/gateways/ — the telephony driver registry, the
 * dial-string columns and the call cap; campaigns dial through it (`aleg_gateway`).
 */
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { campaigns, gateways } from '../../db/schema.ts';
import { DEFAULT_DRIVER, driverNames, validateDriverSettings } from '../../drivers/voice/index.ts';
import { integer, text } from '../../http/fields.ts';
import type { GatewayKind } from '../gateways/gateway-kind.ts';
import { findRow } from '../gateways/gateways.repository.ts';
import { gatewayFields as fieldsOfKind, gatewayRecord } from '../gateways/gateways.schema.ts';

export type GatewayRow = typeof gateways.$inferSelect;

export const gatewayFields = fieldsOfKind('the telephony driver: simulator (default) or freeswitch', {
  gateways: text({ max: 500, description: 'dial-string prefix, e.g. sofia/gateway/carrier/' }),
  addprefix: text({ max: 60 }),
  removeprefix: text({ max: 60 }),
  originate_dial_string: text({ max: 500 }),
  maximum_call: integer({ min: 1, nullable: true, description: 'calls at once through this gateway; null = no cap' }),
});

const Optional = Type.Optional;

export const GatewayRecord = gatewayRecord(
  {
    gateways: Optional(Type.String()),
    addprefix: Optional(Type.String()),
    removeprefix: Optional(Type.String()),
    originate_dial_string: Optional(Type.String()),
    maximum_call: Optional(Type.Union([Type.Integer(), Type.Null()])),
  },
  {},
);

export const voiceGateway: GatewayKind<typeof gateways, typeof gatewayFields> = {
  resource: 'gateway',
  words: { label: 'gateway', noun: 'gateway', campaign: 'campaign' },
  table: gateways,
  ownColumns: (input) => ({
    gateways: input.gateways ?? undefined,
    addprefix: input.addprefix ?? undefined,
    removeprefix: input.removeprefix ?? undefined,
    originate_dial_string: input.originate_dial_string ?? undefined,
    maximum_call: input.maximum_call,
  }),
  fields: gatewayFields,
  record: GatewayRecord,
  present: (_request, row) => ({
    config: {
      gateways: row.gateways,
      addprefix: row.addprefix,
      removeprefix: row.removeprefix,
      originate_dial_string: row.originate_dial_string,
      maximum_call: row.maximum_call,
    },
  }),
  usedBy: { table: campaigns, gateway: campaigns.aleg_gateway_id, status: campaigns.status },
  drivers: { names: driverNames, fallback: DEFAULT_DRIVER, validate: validateDriverSettings },
};

/** The gateway with this id, active or not (any user may use any gateway, contract §8). */
export function findGateway(db: Db, id: number): Promise<GatewayRow | undefined> {
  return findRow(gateways, db, id);
}
