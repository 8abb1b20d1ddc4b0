/** An sms_messages row → the sms-message record (cost: 5 decimals; dates: ISO 8601 UTC). */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import type { SmsMessageRow } from './sms-message.repository.ts';

const NullableDate = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const SmsMessageRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  /** null for a message sent by a voice call's send-SMS section (see `callrequest`). */
  sms_campaign: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  callrequest: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  recipient_number: Type.String(),
  sender_number: Type.String(),
  content: Type.String(),
  parts: Type.Integer(),
  cost: Type.String(),
  status: Type.String({ enum: ['unsent', 'sent', 'delivered', 'failed'] }),
  gateway_message_id: Type.String(),
  send_date: NullableDate,
  delivery_date: NullableDate,
  error: Type.String(),
});

export function presentSmsMessage(request: FastifyRequest, row: SmsMessageRow): Static<typeof SmsMessageRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('sms-message', row.id) as string,
    sms_campaign: link('sms-campaigns', row.sms_campaign_id),
    callrequest: link('callrequest', row.callrequest_id),
    recipient_number: row.recipient_number,
    sender_number: row.sender_number,
    content: row.content,
    parts: row.parts,
    cost: decimalString(row.cost),
    status: row.status,
    gateway_message_id: row.gateway_message_id,
    send_date: isoTime(row.send_date),
    delivery_date: isoTime(row.delivery_date),
    error: row.error,
  };
}
