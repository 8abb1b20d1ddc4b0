/**
 * SMS campaign life (contract §5, the voice campaign's transitions): start checks the phonebooks
 * and the SMS gateway and, the first time, spools the subscribers (one per distinct number);
 * abort marks pending subscribers ABORT. Each function writes the state change and the work it
 * causes in the transaction it is given.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, smsCampaignPhonebooks, smsGateways, smsSubscribers, SmsSubscriberStatus } from '../../db/schema.ts';
import { smsSpool, spoolCampaign } from '../../campaign/spool.ts';
import { invalid } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import { transitionProblem } from '../campaigns/campaign.state.ts';
import { type SmsCampaignInsert, type SmsCampaignRow, updateSmsCampaign } from './sms-campaigns.repository.ts';
import type { SmsCampaignFields } from './sms-campaigns.schema.ts';

const plain = [
  'name', 'description', 'callerid', 'text_message', 'startingdate', 'expirationdate', 'frequency', 'callmaxduration',
  'maxretry', 'intervalretry', 'daily_start_time', 'daily_stop_time', 'monday', 'tuesday', 'wednesday', 'thursday',
  'friday', 'saturday', 'sunday', 'end_when_done',
] as const;

/** Parsed request fields → columns (status and phonebook are the service's; a null leaves a not-null column). */
export function smsCampaignColumns(values: Parsed<SmsCampaignFields>): Partial<SmsCampaignInsert> {
  const out: Record<string, unknown> = {};
  for (const key of plain) {
    const v = values[key];
    if (v === undefined || (v === null && key !== 'startingdate' && key !== 'expirationdate')) continue;
    out[key] = v;
  }
  if (values.sms_gateway) out.sms_gateway_id = values.sms_gateway;
  if (values.user) out.user_id = values.user;
  return out as Partial<SmsCampaignInsert>;
}

const refuse = (why: string) => invalid({ status: [why] });

/** Why the SMS campaign cannot start now, or undefined when it can. */
async function startProblem(db: Db, c: SmsCampaignRow): Promise<string | undefined> {
  const books = await db.$count(smsCampaignPhonebooks, eq(smsCampaignPhonebooks.sms_campaign_id, c.id));
  if (books === 0) return 'The SMS campaign cannot start: it has no phonebook.';
  if (c.sms_gateway_id === null) return 'The SMS campaign cannot start: it has no SMS gateway.';
  const [gateway] = await db.select({ status: smsGateways.status }).from(smsGateways).where(eq(smsGateways.id, c.sms_gateway_id));
  if (!gateway || gateway.status !== 1) return 'The SMS campaign cannot start: its SMS gateway is inactive.';
  return undefined;
}

/** START (from PAUSE or NEW): checks it can start; the first start spools the subscribers. */
async function startSmsCampaign(db: Db, c: SmsCampaignRow, timeZone: string): Promise<SmsCampaignRow> {
  const problem = await startProblem(db, c);
  if (problem) throw refuse(problem);
  if (c.has_been_started) return updateSmsCampaign(db, c.id, { status: CampaignStatus.Start, engine_state: null });
  await spoolCampaign(db, c.id, { target: smsSpool, timeZone });
  return updateSmsCampaign(db, c.id, {
    status: CampaignStatus.Start,
    has_been_started: true,
    started_date: sql`now()` as never,
    engine_state: null,
  });
}

/** ABORT: final; pending subscribers become ABORT (messages being sent are recorded as they end). */
async function abortSmsCampaign(db: Db, c: SmsCampaignRow): Promise<SmsCampaignRow> {
  await db
    .update(smsSubscribers)
    .set({ status: SmsSubscriberStatus.Abort, reason: 'campaign aborted', updated_date: sql`now()` })
    .where(
      and(
        eq(smsSubscribers.sms_campaign_id, c.id),
        inArray(smsSubscribers.status, [SmsSubscriberStatus.Pending, SmsSubscriberStatus.Pause]),
      ),
    );
  return updateSmsCampaign(db, c.id, { status: CampaignStatus.Abort, ended_date: sql`now()` as never });
}

/** Applies a PATCH `status`: a legal transition (contract §5), or 400 {"status": [why]}. */
export async function changeSmsStatus(db: Db, c: SmsCampaignRow, to: number, timeZone: string): Promise<SmsCampaignRow> {
  if (to === c.status) return c;
  const problem = transitionProblem(c.status, to);
  if (problem) throw refuse(problem);
  switch (to) {
    case CampaignStatus.Start:
      return startSmsCampaign(db, c, timeZone);
    case CampaignStatus.Pause:
      return updateSmsCampaign(db, c.id, { status: CampaignStatus.Pause });
    case CampaignStatus.Abort:
      return abortSmsCampaign(db, c);
    default:
      return updateSmsCampaign(db, c.id, { status: CampaignStatus.End, ended_date: sql`now()` as never });
  }
}
