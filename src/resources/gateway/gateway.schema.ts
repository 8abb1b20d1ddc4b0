/**
 * Gateway request fields and record (contract §3, issue 5 §1). Only admins write gateways and
 * see their configuration; anyone else reads `id`, `url` and `name`, hence the optional fields.
 */
import { Type } from '@sinclair/typebox';
import { GatewayStatus } from '../../db/schema.ts';
import { choice, integer, jsonObject, text } from '../../http/fields.ts';

export const gatewayFields = {
  name: text({ required: true, max: 100, blank: false }),
  status: choice(Object.values(GatewayStatus), { description: '1 active, 0 inactive' }),
  description: text({ max: 2000 }),
  driver: text({ max: 30, blank: false, description: 'the telephony driver: simulator (default) or freeswitch' }),
  gateways: text({ max: 500, description: 'dial-string prefix, e.g. sofia/gateway/carrier/' }),
  addprefix: text({ max: 60 }),
  removeprefix: text({ max: 60 }),
  originate_dial_string: text({ max: 500 }),
  maximum_call: integer({ min: 1, nullable: true, description: 'calls at once through this gateway; null = no cap' }),
  settings: jsonObject({ description: "the driver's settings; passwords, secrets and tokens are write-only" }),
};

const Optional = Type.Optional;

export const GatewayRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  status: Optional(Type.Integer()),
  description: Optional(Type.String()),
  driver: Optional(Type.String()),
  gateways: Optional(Type.String()),
  addprefix: Optional(Type.String()),
  removeprefix: Optional(Type.String()),
  originate_dial_string: Optional(Type.String()),
  maximum_call: Optional(Type.Union([Type.Integer(), Type.Null()])),
  settings: Optional(Type.Object({}, { additionalProperties: true })),
  created_date: Optional(Type.String({ format: 'date-time' })),
  updated_date: Optional(Type.String({ format: 'date-time' })),
});
