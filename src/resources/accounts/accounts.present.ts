import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { recordUrl } from '../../http/links.ts';
import { decimalNumber, isoTime } from '../../http/present.ts';
import type { UserRow } from '../../users/users.repository.ts';
import type { AccountRecord } from './accounts.schema.ts';

/** An account as admins see it; never its password hash. */
export function presentAccount(request: FastifyRequest, row: UserRow): Static<typeof AccountRecord> {
  return {
    url: recordUrl(request, 'accounts', row.id),
    id: row.id,
    user: recordUrl(request, 'users', row.id),
    username: row.username,
    is_admin: row.is_admin,
    is_active: row.is_active,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    balance: decimalNumber(row.balance),
    call_rate: decimalNumber(row.call_rate),
    sms_rate: decimalNumber(row.sms_rate),
    balance_low_threshold: row.balance_low_threshold === null ? null : decimalNumber(row.balance_low_threshold),
    recording_retention_days: row.recording_retention_days,
    contact_caps: (row.contact_caps ?? null) as Static<typeof AccountRecord>['contact_caps'],
    calling_hours: (row.calling_hours ?? null) as Static<typeof AccountRecord>['calling_hours'],
    default_country: row.default_country,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
