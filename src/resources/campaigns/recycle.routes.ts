/**
 * POST /rest-api/campaigns/<id>/recycle/ (issue 16, item 9) and /rest-api/sms-campaigns/<id>/recycle/:
 * a campaign's final subscribers matching the filter (recycle.schema.ts) return to PENDING with
 * their attempt count reset, answering `{"recycled": n}`; a `campaign.recycled` event (the
 * filter and the count) is written in the same transaction. Visible as the campaign is (another
 * user's: 404); an ended or aborted campaign never dials or sends again, so recycling it is a 409.
 */
import { type CampaignKind, smsKind, voiceKind } from '../../campaign/kinds.ts';
import { EventType, appendEvents } from '../../campaign/events.ts';
import { campaignEvent } from '../../campaign/lifecycle.ts';
import { CampaignStatus, SubscriberStatus } from '../../db/schema.ts';
import type { Db } from '../../db/database.ts';
import { type AppDeps, type Api, fieldContext, recordId } from '../../http/api.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { type Fields, bodySchema, parseBody } from '../../http/fields.ts';
import { type RecycleFilter, recycleSmsSubscribers, recycleSubscribers } from './recycle.repository.ts';
import { RecycleResult, recycleFields, smsRecycleFields } from './recycle.schema.ts';
import { findCampaign } from './repository.ts';

/** What differs by kind: the fields, the name of the outcome filter, the UPDATE, what an ended one cannot do. */
interface RecycleKind {
  kind: CampaignKind;
  fields: (timeZone: string) => Fields;
  outcome: 'dispositions' | 'message_statuses';
  recycle: (tx: Db, campaignId: number, f: RecycleFilter) => Promise<number>;
  verb: string;
}

const byKind: Record<'voice' | 'sms', RecycleKind> = {
  voice: { kind: voiceKind as CampaignKind, fields: recycleFields, outcome: 'dispositions', recycle: recycleSubscribers, verb: 'dial' },
  sms: { kind: smsKind as CampaignKind, fields: smsRecycleFields, outcome: 'message_statuses', recycle: recycleSmsSubscribers, verb: 'send' },
};

/** The recycle route of one kind's resource (routes.ts adds it to /campaigns/ and /sms-campaigns/). */
export function recycleRoutes(which: 'voice' | 'sms') {
  const { kind, fields: fieldsOf, outcome, recycle, verb } = byKind[which];
  return (api: Api, { database, config, engine }: AppDeps) => {
    const { db } = database;
    const fields = fieldsOf(config.timeZone);
    api.post(
      `/${kind.resource}/:id/recycle/`,
      { schema: { tags: [kind.resource], body: bodySchema(fields, { partial: true }), response: { 200: RecycleResult } } },
      async (request) => {
        const id = recordId(request);
        if (!(await findCampaign(db, kind, request.user, id))) throw notFound();
        const values = (await parseBody(fields, request.body ?? {}, fieldContext(db, request), { partial: true })) as Record<string, unknown>;
        const filter: RecycleFilter = {
          statuses: (values.statuses as number[] | null | undefined) ?? [SubscriberStatus.Fail], // FAIL is 4 for both kinds
          outcomes: (values[outcome] as string[] | null | undefined) ?? null,
          lastAttemptBefore: (values.last_attempt_before as string | null | undefined) ?? null,
        };
        const result = await db.transaction(async (tx) => {
          const campaign = await findCampaign(tx, kind, request.user, id, { lock: true });
          if (!campaign) throw notFound();
          if (campaign.status === CampaignStatus.Abort || campaign.status === CampaignStatus.End) {
            throw conflict(`An ended or aborted ${kind.noun} does not ${verb} again: its subscribers cannot be recycled.`);
          }
          const recycled = await recycle(tx, id, filter);
          await appendEvents(tx, [
            campaignEvent(kind, campaign, EventType.CampaignRecycled, {
              recycled,
              statuses: filter.statuses,
              [outcome]: filter.outcomes,
              last_attempt_before: filter.lastAttemptBefore,
            }),
          ]);
          return { recycled, running: campaign.status === CampaignStatus.Start };
        });
        if (result.recycled && result.running) engine?.wake();
        return { recycled: result.recycled };
      },
    );
  };
}
