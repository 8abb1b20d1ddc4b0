/**
 * /rest-api/subscriber-list/ — a campaign's subscribers. Its quirks (spec §4, contract §2):
 * the list is a bare JSON array streamed from the database in keyset batches (constant memory,
 * whatever the campaign size), sliced by `page` with a `Link: rel="next"` header; an update
 * answers 202 with the record; a delete answers 200 {"data": "subscriber deleted"}.
 */
import { integerFilters } from '../../http/filters.ts';
import { and, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { subscribers } from '../../db/schema.ts';
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody, type Parsed } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { pageUrl, readPage } from '../../http/pagination.ts';
import { startedStream } from '../../http/stream.ts';
import { presentSubscriber } from './subscriber-list.present.ts';
import {
  deleteSubscriber,
  findContact,
  findSubscriber,
  insertSubscriber,
  listSubscribers,
  listSubscribersAfter,
  subscriberExists,
  updateSubscriber,
  visibleSubscribers,
} from './subscriber-list.repository.ts';
import { SubscriberRecord, scheduledAtColumns, subscriberFields } from './subscriber-list.schema.ts';
import { campaignDate } from '../campaigns/fields.ts';
import { gmtOffsetOf, zoneOfNumber } from '../../campaign/timezone.ts';
import { phoneKeyOf } from '../../campaign/phone-country.ts';

const tags = ['subscriber-list'];
const BATCH = 1000;
const duplicateError = () => invalid({ duplicate_contact: ['This number is already a subscriber of the campaign.'] });

/** The list filters `campaign_id` and `status` (whole numbers). */
function filters(db: Db, request: FastifyRequest): SQL | undefined {
  const byValue = integerFilters(request, { campaign_id: subscribers.campaign_id, status: subscribers.status });
  return and(visibleSubscribers(db, request.user), ...byValue);
}

/** The time zone fields: given, else derived from the number's key (contract §8, §1). */
function zoneOf(values: Parsed<typeof subscriberFields>, key: string, timeZone: string) {
  if (values.tz_code) return { tz_code: values.tz_code, gmt_offset: values.gmt_offset ?? gmtOffsetOf(values.tz_code) };
  const derived = zoneOfNumber(key, timeZone);
  return { tz_code: derived.tz_code, gmt_offset: values.gmt_offset ?? derived.gmt_offset };
}

function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;
  // issue 16, item 8: `scheduled_at` is a date read in the instance time zone when it has no offset.
  const fields = { ...subscriberFields, scheduled_at: campaignDate(config.timeZone) };
  const present = (request: FastifyRequest, row: Parameters<typeof presentSubscriber>[1]) =>
    presentSubscriber(request, row, config.timeZone);

  api.get('/subscriber-list/', { schema: { tags } }, async (request, reply) => {
    const where = filters(db, request);
    const query = request.query as Record<string, unknown>;
    if (query.page !== undefined) {
      const { page, limit, offset } = readPage(query);
      const rows = await listSubscribers(db, where, limit + 1, offset);
      if (page > 1 && rows.length === 0) throw notFound('Invalid page.');
      if (rows.length > limit) reply.header('link', `<${pageUrl(request, page + 1)}>; rel="next"`);
      return reply.send(rows.slice(0, limit).map((row) => present(request, row)));
    }
    async function* body() {
      // '[' goes out with the first batch: see startedStream.
      let opening = '[';
      let after = 0;
      let first = true;
      for (;;) {
        const rows = await listSubscribersAfter(db, where, after, BATCH);
        if (opening) yield opening;
        opening = '';
        for (const row of rows) {
          yield `${first ? '' : ','}${JSON.stringify(present(request, row))}`;
          first = false;
        }
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1].id;
      }
      yield ']';
    }
    return reply.type('application/json; charset=utf-8').send(await startedStream(body()));
  });

  api.get('/subscriber-list/:id/', { schema: { tags, response: { 200: SubscriberRecord } } }, async (request) => {
    const row = await findSubscriber(db, request.user, recordId(request));
    if (!row) throw notFound();
    return present(request, row);
  });

  api.post(
    '/subscriber-list/',
    { schema: { tags, body: bodySchema(fields), response: { 201: SubscriberRecord } } },
    async (request, reply) => {
      const values = await parseBody(fields, request.body, fieldContext(db, request));
      const contact = values.contact ? await findContact(db, values.contact) : undefined;
      const number = contact?.contact ?? values.duplicate_contact;
      if (!number) throw invalid({ duplicate_contact: ['This field is required when no contact is given.'] });
      const campaignId = values.campaign as number;
      // One subscriber per number (contract §1): its key, the contact's or read in the campaign owner's country.
      const key = contact?.phone_key ?? (await phoneKeyOf(db, 'campaigns', campaignId, number, config.defaultCountry));
      const row = await db.transaction(async (tx) => {
        if (await subscriberExists(tx, campaignId, key)) throw duplicateError();
        return insertSubscriber(tx, {
          campaign_id: campaignId,
          contact_id: contact?.id ?? null,
          duplicate_contact: number,
          phone_key: key,
          full_name: values.full_name ?? contact?.full_name ?? '',
          additional_vars: values.additional_vars ?? contact?.additional_vars ?? {},
          status: values.status ?? undefined,
          ...zoneOf(values, key, config.timeZone),
          ...scheduledAtColumns(values.scheduled_at ?? undefined), // (a null on create: not scheduled)
        });
      });
      return reply.code(201).header('location', recordUrl(request, 'subscriber-list', row.id)).send(present(request, row));
    },
  );

  // contract §2: a subscriber update answers 202 WITH the record; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/subscriber-list/:id/',
    schema: { tags, body: bodySchema(fields, { partial: true }), response: { 202: SubscriberRecord } },
    handler: async (request, reply) => {
      const current = await findSubscriber(db, request.user, recordId(request));
      if (!current) throw notFound();
      const values = await parseBody(fields, request.body, fieldContext(db, request), { partial: true });
      const number = values.duplicate_contact ?? undefined;
      const key = number && (await phoneKeyOf(db, 'campaigns', current.campaign_id, number, config.defaultCountry));
      if (key && (await subscriberExists(db, current.campaign_id, key, current.id))) throw duplicateError();
      const row = await updateSubscriber(db, current.id, {
        status: values.status ?? undefined,
        full_name: values.full_name ?? undefined,
        additional_vars: values.additional_vars ?? undefined,
        duplicate_contact: number,
        phone_key: key || undefined,
        contact_id: values.contact === undefined ? undefined : values.contact,
        tz_code: values.tz_code ?? undefined,
        gmt_offset: values.gmt_offset ?? (values.tz_code ? gmtOffsetOf(values.tz_code) : undefined),
        ...scheduledAtColumns(values.scheduled_at),
      });
      return reply.code(202).send(present(request, row));
    },
  });

  // spec §4.6: a subscriber delete answers 200 {"data": "subscriber deleted"}.
  api.delete('/subscriber-list/:id/', { schema: { tags } }, async (request, reply) => {
    const row = await findSubscriber(db, request.user, recordId(request));
    if (!row) throw notFound();
    await deleteSubscriber(db, row.id);
    return reply.code(200).send({ data: 'subscriber deleted' });
  });
}

export const subscriberListResource: Resource = { name: 'subscriber-list', routes };
