import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { recordUrl } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import type { PaymentRow } from './payment.repository.ts';
import type { PaymentRecord } from './payment.schema.ts';

export function presentPayment(request: FastifyRequest, row: PaymentRow): Static<typeof PaymentRecord> {
  return {
    amount: decimalString(row.amount),
    user: recordUrl(request, 'users', row.user_id),
    description: row.description,
    created_date: isoTime(row.created_date) as string,
  };
}
