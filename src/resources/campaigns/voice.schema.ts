/**
 * Voice campaign request fields (spec §2 "Request fields of a voice campaign"; contract §5,
 * §8: `name`, `aleg_gateway`, `object_id` required) and the record (the request fields plus
 * what the server keeps and computes).
 */
import { Type } from '@sinclair/typebox';
import { eq } from 'drizzle-orm';
import {
  AmdBehavior,
  DialMethod,
  audioFiles,
  calleridGroups,
  CampaignStatus,
  dncLists,
  gateways,
  phonebooks,
  surveyTemplates,
} from '../../db/schema.ts';
import { boolean, choice, decimal, type FieldContext, integer, link, linkList, text } from '../../http/fields.ts';
import { RetryRules, retryRulesField } from '../../campaign/retry-rules.ts';
import { userLink } from '../users/users.fields.ts';
import { anySmsGateway, campaignDate, Link, NullableLink, ownedRow, WindowRecord, windowFields } from './fields.ts';

/** Contract §3, §8: any existing gateway may be used by any user. */
async function anyGateway(ctx: FieldContext, id: number): Promise<boolean> {
  return (await ctx.db.select({ id: gateways.id }).from(gateways).where(eq(gateways.id, id)).limit(1)).length > 0;
}

const count = (min: number) => integer({ min, max: 1_000_000 });

/** The request fields; `timeZone` reads dates without offset (contract §1). */
export function campaignFields(timeZone: string) {
  return {
    name: text({ required: true, max: 100, blank: false }),
    description: text({ max: 2000 }),
    callerid: text({ max: 80 }),
    caller_name: text({ max: 100 }),
    startingdate: campaignDate(timeZone),
    expirationdate: campaignDate(timeZone),
    frequency: count(1),
    max_aleg: count(0),
    max_xfer: count(0),
    dial_method: choice(Object.values(DialMethod)),
    agent_dial_rate: decimal({ places: 2, maxDigits: 6, min: 0 }),
    callmaxduration: count(1),
    maxretry: integer({ min: 0, max: 100 }),
    intervalretry: count(0),
    calltimeout: count(1),
    aleg_gateway: link(['gateway'], anyGateway, { required: true }),
    sms_gateway: link(['sms-gateway', 'sms_gateway'], anySmsGateway, { nullable: true }),
    object_id: link(['survey-template', 'survey_template'], ownedRow(surveyTemplates), { required: true }),
    extra_data: text(),
    voicemail: boolean(),
    amd_behavior: choice(Object.values(AmdBehavior)),
    voicemail_audiofile: link(['audio-files'], ownedRow(audioFiles), { nullable: true }),
    dnc: link(['dnc', 'dnc-list'], ownedRow(dncLists), { nullable: true }),
    callerid_group: link(['callerid_group', 'callerid-group'], ownedRow(calleridGroups), { nullable: true }),
    user: userLink(),
    phonebook: linkList(['phonebook'], ownedRow(phonebooks)),
    ...windowFields(),
    timezone_dialing: boolean(),
    end_when_done: boolean(),
    completion_enabled: boolean(),
    // Issue 16 item 6: record whole calls (both legs where the driver can), listed at /callrequest/<id>/recordings/.
    record_calls: boolean(),
    completion_maxretry: integer({ min: 0, max: 100 }),
    completion_intervalretry: count(0),
    retry_rules: retryRulesField(),
    status: choice(Object.values(CampaignStatus)),
  };
}

export type CampaignFields = ReturnType<typeof campaignFields>;

/** PENDING subscribers held now by the contact caps or the legal calling hours (issue 16), by reason. */
const WaitingCounts = Type.Object(
  {
    total: Type.Integer(),
    attempts: Type.Integer({ description: 'attempts cap (N in a rolling window)' }),
    daily: Type.Integer({ description: 'daily cap' }),
    quiet: Type.Integer({ description: 'quiet period after a conversation' }),
    hours: Type.Integer({ description: 'outside legal calling hours in the contact\'s local time' }),
  },
  { description: 'subscribers waiting (not failed) for a contact cap or the legal calling hours; each is dialled when allowed' },
);

const SubscriberCounts = Type.Object({
  pending: Type.Integer(),
  in_process: Type.Integer(),
  sent: Type.Integer(),
  completed: Type.Integer(),
  fail: Type.Integer(),
  not_authorized: Type.Integer(),
  abort: Type.Integer(),
  pause: Type.Integer(),
  total: Type.Integer(),
});

export const CampaignRecord = Type.Object({
  id: Type.Integer(),
  url: Link,
  campaign_code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  callerid: Type.String(),
  caller_name: Type.String(),
  phonebook: Type.Array(Link),
  startingdate: Type.Union([Type.String(), Type.Null()]),
  expirationdate: Type.Union([Type.String(), Type.Null()]),
  frequency: Type.Integer(),
  max_aleg: Type.Integer(),
  max_xfer: Type.Integer(),
  dial_method: Type.Integer(),
  agent_dial_rate: Type.String(),
  callmaxduration: Type.Integer(),
  maxretry: Type.Integer(),
  intervalretry: Type.Integer(),
  calltimeout: Type.Integer(),
  aleg_gateway: NullableLink,
  sms_gateway: NullableLink,
  object_id: Type.Union([Type.Integer(), Type.Null()]),
  extra_data: Type.String(),
  voicemail: Type.Boolean(),
  amd_behavior: Type.Integer(),
  voicemail_audiofile: NullableLink,
  dnc: NullableLink,
  callerid_group: NullableLink,
  user: Link,
  ...WindowRecord,
  timezone_dialing: Type.Boolean(),
  completion_enabled: Type.Boolean(),
  record_calls: Type.Boolean(),
  completion_maxretry: Type.Integer(),
  completion_intervalretry: Type.Integer(),
  retry_rules: Type.Union([RetryRules, Type.Null()]),
  end_when_done: Type.Boolean(),
  has_been_started: Type.Boolean(),
  totalcontact: Type.Integer(),
  status: Type.Integer(),
  dialing_state: Type.String(),
  progress: Type.Object({
    subscribers: SubscriberCounts,
    calls_placed: Type.Integer(),
    answered: Type.Integer(),
    total_cost: Type.String(),
    waiting: WaitingCounts,
  }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
