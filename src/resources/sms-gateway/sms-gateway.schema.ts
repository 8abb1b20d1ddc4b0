/**
 * SMS gateway request fields and record (contract §3, issue 6 §1). Only admins write SMS gateways
 * and see their configuration and callback URLs; anyone else reads `id`, `url` and `name`.
 */
import { Type } from '@sinclair/typebox';
import { choice, jsonObject, text } from '../../http/fields.ts';
import { GatewayStatus } from '../../db/schema.ts';

export const smsGatewayFields = {
  name: text({ required: true, max: 100, blank: false }),
  status: choice(Object.values(GatewayStatus), { description: '1 active, 0 inactive' }),
  description: text({ max: 2000 }),
  driver: text({ max: 30, blank: false, description: 'the SMS driver: simulator (default), kannel, smpp or http' }),
  settings: jsonObject({ description: "the driver's settings; passwords, secrets and tokens are write-only" }),
};

const Optional = Type.Optional;

export const SmsGatewayRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  status: Optional(Type.Integer()),
  description: Optional(Type.String()),
  driver: Optional(Type.String()),
  settings: Optional(Type.Object({}, { additionalProperties: true })),
  report_url: Optional(
    Type.String({ format: 'uri', description: "delivery reports; Kannel's dlr-url is this with ?id=<message id>&type=%d (the kannel driver adds it)" }),
  ),
  inbound_url: Optional(Type.String({ format: 'uri', description: "inbound messages; for Kannel's sms-service get-url append ?from=%p&to=%P&text=%a" })),
  created_date: Optional(Type.String({ format: 'date-time' })),
  updated_date: Optional(Type.String({ format: 'date-time' })),
});
