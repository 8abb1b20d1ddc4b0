/**
 * POST /rest-api/campaigns/<id>/recycle/ (issue 16, item 9): a voice campaign's final
 * subscribers matching the filter (recycle.schema.ts) return to PENDING with their attempt count
 * reset, answering `{"recycled": n}`; a `campaign.recycled` event (the filter and the count) is
 * written in the same transaction. Visible as the campaign is (another user's: 404); an ended or
 * aborted campaign never dials again, so recycling it is a 409.
 */
import { voiceKind } from '../../campaign/kinds.ts';
import { EventType, appendEvents } from '../../campaign/events.ts';
import { campaignEvent } from '../../campaign/lifecycle.ts';
import { CampaignStatus, SubscriberStatus } from '../../db/schema.ts';
import { type AppDeps, type Api, fieldContext, recordId } from '../../http/api.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { recycleSubscribers } from './recycle.repository.ts';
import { RecycleResult, recycleFields } from './recycle.schema.ts';
import { findCampaign } from './repository.ts';

export function recycleRoutes(api: Api, { database, config, engine }: AppDeps) {
  const { db } = database;
  const fields = recycleFields(config.timeZone);
  api.post(
    '/campaigns/:id/recycle/',
    { schema: { tags: ['campaigns'], body: bodySchema(fields, { partial: true }), response: { 200: RecycleResult } } },
    async (request) => {
      const id = recordId(request);
      if (!(await findCampaign(db, voiceKind, request.user, id))) throw notFound();
      const values = await parseBody(fields, request.body ?? {}, fieldContext(db, request), { partial: true });
      const filter = {
        statuses: values.statuses ?? [SubscriberStatus.Fail],
        dispositions: values.dispositions ?? null,
        lastAttemptBefore: values.last_attempt_before ?? null,
      };
      const result = await db.transaction(async (tx) => {
        const campaign = await findCampaign(tx, voiceKind, request.user, id, { lock: true });
        if (!campaign) throw notFound();
        if (campaign.status === CampaignStatus.Abort || campaign.status === CampaignStatus.End) {
          throw conflict('An ended or aborted campaign does not dial again: its subscribers cannot be recycled.');
        }
        const recycled = await recycleSubscribers(tx, id, filter);
        await appendEvents(tx, [
          campaignEvent(voiceKind, campaign, EventType.CampaignRecycled, {
            recycled,
            statuses: filter.statuses,
            dispositions: filter.dispositions,
            last_attempt_before: filter.lastAttemptBefore,
          }),
        ]);
        return { recycled, running: campaign.status === CampaignStatus.Start };
      });
      if (result.recycled && result.running) engine?.wake();
      return { recycled: result.recycled };
    },
  );
}
