/**
 * /rest-api/sms-message/ — the messages the SMS engine sent (read-only), filtered by
 * `sms_campaign_id`, `status` and `recipient_number`.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { SmsMessageStatus, smsMessages } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { integerFilters, queryChoice, queryText } from '../../http/filters.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { normalizePhone } from '../../http/phone.ts';
import { presentSmsMessage, SmsMessageRecord } from './sms-message.present.ts';
import { countSmsMessages, findSmsMessage, listSmsMessages, visibleSmsMessages } from './sms-message.repository.ts';

const tags = ['sms-message'];
const statuses: readonly string[] = Object.values(SmsMessageStatus);

function filters(db: Db, request: FastifyRequest): SQL | undefined {
  const conditions: (SQL | undefined)[] = [visibleSmsMessages(db, request.user), ...integerFilters(request, { sms_campaign_id: smsMessages.sms_campaign_id })];
  const status = queryChoice(request, 'status', statuses);
  if (status !== undefined) conditions.push(eq(smsMessages.status, status));
  const recipient = queryText(request, 'recipient_number');
  if (recipient !== undefined) conditions.push(eq(smsMessages.recipient_number, normalizePhone(recipient) ?? recipient));
  return and(...conditions);
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/sms-message/', { schema: { tags, response: { 200: envelopeOf(SmsMessageRecord) } } }, async (request) => {
    const where = filters(db, request);
    return paginate(
      request,
      () => countSmsMessages(db, where),
      (limit, offset) => listSmsMessages(db, where, limit, offset),
      (row) => presentSmsMessage(request, row),
    );
  });

  api.get('/sms-message/:id/', { schema: { tags, response: { 200: SmsMessageRecord } } }, async (request) => {
    const row = await findSmsMessage(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentSmsMessage(request, row);
  });
}

export const smsMessageResource: Resource = { name: 'sms-message', routes };
