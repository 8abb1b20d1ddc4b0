/**
 * /rest-api/subcampaign/ — a campaign's subscribers as Newfies' view_subscriber_per_campaign.py
 * lists them: a bare array of {contact_id, last_attempt, count_attempt, completion_count_attempt,
 * status, subscriber_id, contact}.
 */
import { Type } from '@sinclair/typebox';
import { SubscriberStatus } from '../../db/schema.ts';
import { choice } from '../../http/fields.ts';

export const SubCampaignItem = Type.Object({
  contact_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The contact it was spooled from' }),
  last_attempt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  count_attempt: Type.Integer(),
  completion_count_attempt: Type.Integer({ description: 'Completion callbacks made so far (completion_enabled)' }),
  status: Type.Integer({ description: 'Subscriber status (contract §4)' }),
  subscriber_id: Type.Integer(),
  contact: Type.String({ description: 'The number dialled (duplicate_contact)' }),
});

export const SubCampaignList = Type.Array(SubCampaignItem);

/** The update of one subscriber: its status (contract §4), as Newfies' subscriber update. */
export const subCampaignFields = {
  status: choice(Object.values(SubscriberStatus), { required: true }),
};
