/**
 * SMS campaign request fields (spec: the SMS campaign row and its POST; contract §5, §8:
 * `name`, `sms_gateway`, `text_message` required) and the record (the request fields plus what
 * the server keeps and computes: `progress`, `dialing_state`).
 */
import { Type } from '@sinclair/typebox';
import { UNPACED_FREQUENCY } from '../../campaign/pace.ts';
import { CampaignStatus, phonebooks, smsTemplates } from '../../db/schema.ts';
import { boolean, choice, integer, link, linkList, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';
import { anySmsGateway, campaignDate, Link, NullableLink, ownedRow, WindowRecord, windowFields } from './fields.ts';

const count = (min: number) => integer({ min, max: UNPACED_FREQUENCY });

/** The request fields; `timeZone` reads dates without offset (contract §1). */
export function smsCampaignFields(timeZone: string) {
  return {
    name: text({ required: true, max: 100, blank: false }),
    description: text({ max: 2000 }),
    callerid: text({ max: 80 }),
    // Issue 17: with an sms_template, text_message may be left out (the template's text is sent).
    text_message: { ...text({ required: true, max: 10_000, blank: false }), requiredUnless: 'sms_template' },
    sms_template: link(['sms-template'], ownedRow(smsTemplates), {
      nullable: true,
      description: "One of the owner's SMS templates: its sms_text is sent when text_message is empty",
    }),
    sms_gateway: link(['sms-gateway', 'sms_gateway'], anySmsGateway, { required: true }),
    phonebook: linkList(['phonebook'], ownedRow(phonebooks)),
    user: userLink(),
    startingdate: campaignDate(timeZone),
    expirationdate: campaignDate(timeZone),
    frequency: integer({ min: 1, max: UNPACED_FREQUENCY, description: `messages per minute; ${UNPACED_FREQUENCY} = no pace limit` }),
    callmaxduration: count(1),
    maxretry: integer({ min: 0, max: 100 }),
    intervalretry: count(0),
    ...windowFields(),
    end_when_done: boolean(),
    status: choice(Object.values(CampaignStatus)),
  };
}

export type SmsCampaignFields = ReturnType<typeof smsCampaignFields>;

export const SmsCampaignRecord = Type.Object({
  id: Type.Integer(),
  url: Link,
  sms_campaign_code: Type.String(),
  name: Type.String(),
  description: Type.String(),
  callerid: Type.String(),
  phonebook: Type.Array(Link),
  startingdate: Type.Union([Type.String(), Type.Null()]),
  expirationdate: Type.Union([Type.String(), Type.Null()]),
  sms_gateway: NullableLink,
  user: Link,
  status: Type.Integer(),
  frequency: Type.Integer(),
  callmaxduration: Type.Integer(),
  maxretry: Type.Integer(),
  intervalretry: Type.Integer(),
  ...WindowRecord,
  text_message: Type.String(),
  sms_template: NullableLink,
  end_when_done: Type.Boolean(),
  has_been_started: Type.Boolean(),
  totalcontact: Type.Integer(),
  dialing_state: Type.String(),
  progress: Type.Object({
    subscribers: Type.Object({
      pending: Type.Integer(),
      in_process: Type.Integer(),
      complete: Type.Integer(),
      fail: Type.Integer(),
      not_authorized: Type.Integer(),
      abort: Type.Integer(),
      pause: Type.Integer(),
      total: Type.Integer(),
    }),
    messages_sent: Type.Integer(),
    delivered: Type.Integer(),
    failed: Type.Integer(),
    total_cost: Type.String(),
  }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
