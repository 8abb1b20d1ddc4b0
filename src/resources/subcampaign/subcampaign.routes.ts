/**
 * /rest-api/subcampaign/<campaign_id>/[<contact_id>/] — Newfies' subscribers per campaign
 * (issue 17, item 4). GET lists the campaign's subscribers as a bare array (streamed in keyset
 * batches, constant memory), or the subscriber of one contact (matched by its number's key, so
 * in any form: one subscriber per number, contract §5); PATCH/PUT on the contact's path sets
 * that subscriber's `status` and answers 202 with it (contract §2, as a subscriber-list update).
 * A campaign or contact the caller may not see answers 404 (contract §3) with Newfies' message
 * under `error` beside `detail`; /subcampaign/ without a campaign is such a 404 too.
 */
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, fieldContext, type Resource } from '../../http/api.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { isoTime } from '../../http/present.ts';
import { startedStream } from '../../http/stream.ts';
import {
  findSubscriberByNumber,
  findVisibleCampaign,
  findVisibleContactNumber,
  listCampaignSubscribers,
  type SubscriberRow,
  updateSubscriberStatus,
} from './subcampaign.repository.ts';
import { SubCampaignList, subCampaignFields } from './subcampaign.schema.ts';

const NAME = 'subcampaign';
const tags = [NAME];
const BATCH = 1000;

const invalidCampaign = () => new AppError(404, { detail: 'Not found.', error: 'Campaign ID is not valid!' });
const invalidContact = () => new AppError(404, { detail: 'Not found.', error: 'Contact ID is not valid!' });

function present(row: SubscriberRow) {
  return {
    contact_id: row.contact_id,
    last_attempt: isoTime(row.last_attempt),
    count_attempt: row.count_attempt,
    completion_count_attempt: row.completion_attempt,
    status: row.status,
    subscriber_id: row.id,
    contact: row.duplicate_contact,
  };
}

/** A path id: a positive 32-bit integer, else undefined. */
function pathId(request: FastifyRequest, name: 'campaign_id' | 'contact_id'): number | undefined {
  const raw = (request.params as Record<string, string | undefined>)[name] ?? '';
  return /^\d{1,10}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 2_147_483_647 ? Number(raw) : undefined;
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  async function campaignOf(request: FastifyRequest): Promise<number> {
    const id = pathId(request, 'campaign_id');
    const campaign = id === undefined ? undefined : await findVisibleCampaign(db, request.user, id);
    if (campaign === undefined) throw invalidCampaign();
    return campaign;
  }

  async function subscriberOf(request: FastifyRequest): Promise<SubscriberRow | undefined> {
    const campaign = await campaignOf(request);
    const contact = pathId(request, 'contact_id');
    const number = contact === undefined ? undefined : await findVisibleContactNumber(db, request.user, contact);
    if (number === undefined) throw invalidContact();
    return findSubscriberByNumber(db, campaign, number);
  }

  // Newfies routes /subcampaign/ itself and answers it "Campaign ID is not valid!".
  api.get(`/${NAME}/`, { schema: { tags, hide: true } }, async () => {
    throw invalidCampaign();
  });

  api.get(`/${NAME}/:campaign_id/`, { schema: { tags, response: { 200: SubCampaignList } } }, async (request, reply) => {
    const campaign = await campaignOf(request);
    async function* body() {
      let opening = '[';
      let after = 0;
      let first = true;
      for (;;) {
        const rows = await listCampaignSubscribers(db, campaign, after, BATCH);
        if (opening) yield opening;
        opening = '';
        for (const row of rows) {
          yield `${first ? '' : ','}${JSON.stringify(present(row))}`;
          first = false;
        }
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1].id;
      }
      yield ']';
    }
    // A stream is sent as it is (Fastify serializes objects only); the schema documents it.
    return reply.type('application/json; charset=utf-8').send((await startedStream(body())) as never);
  });

  api.get(`/${NAME}/:campaign_id/:contact_id/`, { schema: { tags, response: { 200: SubCampaignList } } }, async (request) => {
    const row = await subscriberOf(request);
    return row ? [present(row)] : [];
  });

  api.route({
    method: ['PATCH', 'PUT'],
    url: `/${NAME}/:campaign_id/:contact_id/`,
    schema: { tags, body: bodySchema(subCampaignFields), response: { 202: SubCampaignList } },
    handler: async (request, reply) => {
      const row = await subscriberOf(request);
      if (!row) throw notFound();
      const values = await parseBody(subCampaignFields, request.body, fieldContext(db, request));
      const updated = await updateSubscriberStatus(db, row.id, values.status as number);
      return reply.code(202).send([present(updated)]);
    },
  });
}

export const subCampaignResource: Resource = { name: NAME, listed: false, routes };
