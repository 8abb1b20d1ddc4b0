/** /rest-api/sms-campaigns/ — SMS campaigns and their life (spec: SMS campaign row; contract §2, §5). */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { conflict, invalid, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { CampaignStatus } from '../../db/schema.ts';
import { smsSpool, spoolPhonebooks } from '../../campaign/spool.ts';
import { checkDateOrder } from '../campaigns/campaign.dates.ts';
import { withDateDefaults } from '../campaigns/campaign.values.ts';
import { presentSmsCampaigns } from './sms-campaigns.present.ts';
import {
  addSmsPhonebooks,
  countSmsCampaigns,
  deleteSmsCampaign,
  findSmsCampaign,
  insertSmsCampaign,
  listSmsCampaigns,
  lockSmsCampaign,
  newSmsCampaignCode,
  setSmsPhonebooks,
  smsNameTaken,
  updateSmsCampaign,
  visibleSmsCampaigns,
} from './sms-campaigns.repository.ts';
import { SmsCampaignRecord, smsCampaignFields } from './sms-campaigns.schema.ts';
import { changeSmsStatus, smsCampaignColumns } from './sms-campaigns.service.ts';

const tags = ['sms-campaigns'];
const nameTakenError = () => invalid({ name: ['An SMS campaign with this name already exists.'] });

function routes(api: Api, { database, config, engine }: AppDeps) {
  const { db } = database;
  const fields = smsCampaignFields(config.timeZone);
  const { timeZone } = config;
  const present = (request: Parameters<typeof presentSmsCampaigns>[0], rows: Parameters<typeof presentSmsCampaigns>[2]) =>
    presentSmsCampaigns(request, db, rows, { timeZone });

  api.get('/sms-campaigns/', { schema: { tags, response: { 200: envelopeOf(SmsCampaignRecord) } } }, async (request) => {
    const where = visibleSmsCampaigns(request.user);
    const page = await paginate(
      request,
      () => countSmsCampaigns(db, where),
      (limit, offset) => listSmsCampaigns(db, where, limit, offset),
      (row) => row,
    );
    return { ...page, results: await present(request, page.results) };
  });

  api.get('/sms-campaigns/:id/', { schema: { tags, response: { 200: SmsCampaignRecord } } }, async (request) => {
    const row = await findSmsCampaign(db, request.user, recordId(request));
    if (!row) throw notFound();
    return (await present(request, [row]))[0];
  });

  // contract §4, §5: created PAUSE (2) unless told 0 (NEW) or 1 (START, with the checks of a start).
  api.post(
    '/sms-campaigns/',
    { schema: { tags, body: bodySchema(fields), response: { 201: SmsCampaignRecord } } },
    async (request, reply) => {
      const values = await parseBody(fields, request.body, fieldContext(db, request));
      const status = values.status ?? CampaignStatus.Pause;
      if (status !== CampaignStatus.New && status !== CampaignStatus.Start && status !== CampaignStatus.Pause) {
        throw invalid({ status: ['An SMS campaign is created with status 0 (NEW), 1 (START) or 2 (PAUSE).'] });
      }
      const columns = withDateDefaults(smsCampaignColumns(values), new Date());
      checkDateOrder(columns);
      const userId = values.user ?? request.user.id;
      const row = await db.transaction(async (t) => {
        if (await smsNameTaken(t, userId, values.name as string)) throw nameTakenError();
        const created = await insertSmsCampaign(t, {
          ...columns,
          name: values.name as string,
          user_id: userId,
          sms_campaign_code: await newSmsCampaignCode(t),
          status: status === CampaignStatus.New ? CampaignStatus.New : CampaignStatus.Pause,
        });
        await addSmsPhonebooks(t, created.id, values.phonebook ?? []);
        if (status !== CampaignStatus.Start) return created;
        return changeSmsStatus(t, created, CampaignStatus.Start, timeZone);
      });
      if (row.status === CampaignStatus.Start) engine?.wake();
      const [json] = await present(request, [row]);
      return reply.code(201).header('location', recordUrl(request, 'sms-campaigns', row.id)).send(json);
    },
  );

  // contract §2: update answers 202 with an empty body; PUT is a partial update too.
  api.route({
    method: ['PATCH', 'PUT'],
    url: '/sms-campaigns/:id/',
    schema: { tags, body: bodySchema(fields, { partial: true }) },
    handler: async (request, reply) => {
      const id = recordId(request);
      if (!(await findSmsCampaign(db, request.user, id))) throw notFound();
      const values = await parseBody(fields, request.body, fieldContext(db, request), { partial: true });
      const row = await db.transaction(async (t) => {
        const current = await lockSmsCampaign(t, request.user, id);
        if (!current) throw notFound();
        const columns = smsCampaignColumns(values);
        checkDateOrder(columns, current); // a new start past the stored expiration, or the reverse
        if (columns.name && (await smsNameTaken(t, columns.user_id ?? current.user_id, columns.name, id))) throw nameTakenError();
        let campaign = Object.keys(columns).length ? await updateSmsCampaign(t, id, columns) : current;
        if (values.phonebook !== undefined) {
          const added = await setSmsPhonebooks(t, id, values.phonebook);
          // contract §5: a phonebook added to a running campaign joins it.
          if (campaign.status === CampaignStatus.Start) await spoolPhonebooks(t, id, added, { target: smsSpool, timeZone });
        }
        if (values.status !== undefined && values.status !== null) campaign = await changeSmsStatus(t, campaign, values.status, timeZone);
        return campaign;
      });
      if (row.status === CampaignStatus.Start) engine?.wake();
      return reply.code(202).send();
    },
  });

  // contract §2: delete answers 200 {"data": "sms campaign deleted"}; 409 while it runs.
  api.delete('/sms-campaigns/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    const row = await findSmsCampaign(db, request.user, id);
    if (!row) throw notFound();
    if (row.status === CampaignStatus.Start) throw conflict('A running SMS campaign cannot be deleted; pause, end or abort it first.');
    await deleteSmsCampaign(db, id);
    return reply.code(200).send({ data: 'sms campaign deleted' });
  });
}

export const smsCampaignsResource: Resource = { name: 'sms-campaigns', routes };
