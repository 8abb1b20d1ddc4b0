/** /rest-api/campaigns/ — voice campaigns and their life (contract §5). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { conflict, invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { CampaignStatus } from '../../db/schema.ts';
import { spoolPhonebooks } from '../../campaign/spool.ts';
import { presentCampaigns } from './campaign.present.ts';
import {
  addPhonebooks,
  countCampaigns,
  deleteCampaign,
  findCampaign,
  insertCampaign,
  listCampaigns,
  lockCampaign,
  nameTaken,
  newCampaignCode,
  setPhonebooks,
  updateCampaign,
  visibleCampaigns,
} from './campaign.repository.ts';
import { CampaignRecord, campaignFields } from './campaign.schema.ts';
import { checkDateOrder } from './campaign.dates.ts';
import { changeStatus } from './campaign.service.ts';
import { campaignColumns, withDateDefaults } from './campaign.values.ts';

const tags = ['campaigns'];
const nameTakenError = () => invalid({ name: ['A campaign with this name already exists.'] });

function routes(api: Api, { database, config, engine }: AppDeps) {
  const { db } = database;
  const fields = campaignFields(config.timeZone);
  const options = { timeZone: config.timeZone };
  const present = async (request: Parameters<typeof presentCampaigns>[0], rows: Parameters<typeof presentCampaigns>[2]) =>
    presentCampaigns(request, db, rows, options);

  api.get('/campaigns/', { schema: { tags, response: { 200: envelopeOf(CampaignRecord) } } }, async (request) => {
    const where = visibleCampaigns(request.user);
    const page = await paginate(
      request,
      () => countCampaigns(db, where),
      (limit, offset) => listCampaigns(db, where, limit, offset),
      (row) => row,
    );
    return { ...page, results: await present(request, page.results) };
  });

  api.get('/campaigns/:id/', { schema: { tags, response: { 200: CampaignRecord } } }, async (request) => {
    const row = await findCampaign(db, request.user, recordId(request));
    if (!row) throw notFound();
    return (await present(request, [row]))[0];
  });

  // contract §5: created NEW (0), started at once (1, with the checks of a start) or PAUSE (2).
  api.post(
    '/campaigns/',
    { schema: { tags, body: bodySchema(fields), response: { 201: CampaignRecord } } },
    async (request, reply) => {
      const values = await parseBody(fields, request.body, fieldContext(db, request));
      const status = values.status ?? CampaignStatus.New;
      if (status !== CampaignStatus.New && status !== CampaignStatus.Start && status !== CampaignStatus.Pause) {
        throw invalid({ status: ['A campaign is created with status 0 (NEW), 1 (START) or 2 (PAUSE).'] });
      }
      const columns = withDateDefaults(campaignColumns(values), new Date());
      checkDateOrder(columns);
      const userId = values.user ?? request.user.id;
      const row = await db.transaction(async (tx) => {
        if (await nameTaken(tx, userId, values.name as string)) throw nameTakenError();
        const created = await insertCampaign(tx, {
          ...columns,
          name: values.name as string,
          user_id: userId,
          campaign_code: await newCampaignCode(tx),
          status: status === CampaignStatus.Pause ? CampaignStatus.Pause : CampaignStatus.New,
        });
        await addPhonebooks(tx, created.id, values.phonebook ?? []);
        if (status !== CampaignStatus.Start) return created;
        return changeStatus(tx, created, CampaignStatus.Start, options);
      });
      if (row.status === CampaignStatus.Start) engine?.wake();
      const [json] = await present(request, [row]);
      return reply.code(201).header('location', recordUrl(request, 'campaigns', row.id)).send(json);
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/campaigns/:id/',
    schema: { tags, body: bodySchema(fields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findCampaign(db, request.user, id))) throw notFound();
      const values = await parseBody(fields, request.body, fieldContext(db, request), { partial: true });
      const row = await db.transaction(async (t) => {
        const current = await lockCampaign(t, request.user, id);
        if (!current) throw notFound();
        const columns = campaignColumns(values);
        checkDateOrder(columns, current); // a new start past the stored expiration, or the reverse
        if (columns.name && (await nameTaken(t, columns.user_id ?? current.user_id, columns.name, id))) throw nameTakenError();
        let campaign = Object.keys(columns).length ? await updateCampaign(t, id, columns) : current;
        if (values.phonebook !== undefined) {
          const added = await setPhonebooks(t, id, values.phonebook);
          // contract §5: a phonebook added to a running campaign joins it.
          if (campaign.status === CampaignStatus.Start) await spoolPhonebooks(t, id, added, options);
        }
        if (values.status !== undefined && values.status !== null) {
          campaign = await changeStatus(t, campaign, values.status, options);
        }
        return campaign;
      });
      if (row.status === CampaignStatus.Start) engine?.wake();
      return reply.code(202).send();
    },
  });

  api.delete('/campaigns/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    const row = await findCampaign(db, request.user, id);
    if (!row) throw notFound();
    if (row.status === CampaignStatus.Start) throw conflict('A running campaign cannot be deleted; pause, end or abort it first.');
    await deleteCampaign(db, id);
    return reply.code(204).send();
  });
}

export const campaignsResource: Resource = { name: 'campaigns', routes };
