import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { recordUrl } from '../../http/links.ts';
import { decimalNumber } from '../../http/present.ts';
import type { UserRow } from '../../users/users.repository.ts';
import type { UserRecord } from './users.schema.ts';

export function presentUser(request: FastifyRequest, row: UserRow): Static<typeof UserRecord> {
  return {
    url: recordUrl(request, 'users', row.id),
    username: row.username,
    last_name: row.last_name,
    first_name: row.first_name,
    email: row.email,
    balance: decimalNumber(row.balance),
    call_rate: decimalNumber(row.call_rate),
    sms_rate: decimalNumber(row.sms_rate),
  };
}
