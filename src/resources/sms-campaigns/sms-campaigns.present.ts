/** SMS campaign rows → JSON: links, dates, and the computed `progress` and `dialing_state`. */
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { SmsSubscriberStatus } from '../../db/schema.ts';
import { linker } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import { presentWindow } from '../campaigns/campaign.present.ts';
import { DialingState, dialingState, subscriberCounts } from '../campaigns/campaign.state.ts';
import {
  type SmsCampaignRow,
  type SmsCampaignTotals,
  smsGatewayStatuses,
  smsPhonebooksOf,
  smsTotalsOf,
} from './sms-campaigns.repository.ts';
import type { SmsCampaignRecord } from './sms-campaigns.schema.ts';

export type SmsCampaignJson = Static<typeof SmsCampaignRecord>;

/** The `progress` object: subscribers by status, messages sent, delivered, failed, total cost. */
function progressOf(totals: SmsCampaignTotals | undefined) {
  const S = SmsSubscriberStatus;
  return {
    subscribers: subscriberCounts(totals?.bySubscriberStatus, {
      pending: S.Pending,
      in_process: S.InProcess,
      complete: S.Complete,
      fail: S.Fail,
      not_authorized: S.NotAuthorized,
      abort: S.Abort,
      pause: S.Pause,
    }),
    messages_sent: totals?.messages_sent ?? 0,
    delivered: totals?.delivered ?? 0,
    failed: totals?.failed ?? 0,
    total_cost: decimalString(totals?.total_cost ?? '0'),
  };
}

/** Presents SMS campaign rows, loading phonebooks, gateways and progress in a few set queries. */
export async function presentSmsCampaigns(
  request: FastifyRequest,
  db: Db,
  rows: SmsCampaignRow[],
  { timeZone, now = new Date() }: { timeZone: string; now?: Date },
): Promise<SmsCampaignJson[]> {
  const ids = rows.map((r) => r.id);
  const gatewayIds = rows.flatMap((r) => (r.sms_gateway_id ? [r.sms_gateway_id] : []));
  const [books, totals, gateways] = await Promise.all([smsPhonebooksOf(db, ids), smsTotalsOf(db, ids), smsGatewayStatuses(db, gatewayIds)]);
  const link = linker(request);
  return rows.map((row) => {
    // The voice campaign's rule, said in SMS words: "dialing" is "sending" here.
    const state = dialingState(row, now, timeZone, gateways.get(row.sms_gateway_id ?? 0), totals.get(row.id));
    return {
      id: row.id,
      url: link('sms-campaigns', row.id) as string,
      sms_campaign_code: row.sms_campaign_code,
      name: row.name,
      description: row.description,
      callerid: row.callerid,
      phonebook: (books.get(row.id) ?? []).map((id) => link('phonebook', id) as string),
      startingdate: isoTime(row.startingdate),
      expirationdate: isoTime(row.expirationdate),
      sms_gateway: link('sms-gateway', row.sms_gateway_id),
      user: link('users', row.user_id) as string,
      status: row.status,
      frequency: row.frequency,
      callmaxduration: row.callmaxduration,
      maxretry: row.maxretry,
      intervalretry: row.intervalretry,
      ...presentWindow(row),
      text_message: row.text_message,
      end_when_done: row.end_when_done,
      has_been_started: row.has_been_started,
      totalcontact: row.totalcontact,
      dialing_state: state === DialingState.Dialing ? 'sending' : state,
      progress: progressOf(totals.get(row.id)),
      created_date: isoTime(row.created_date) as string,
      updated_date: isoTime(row.updated_date) as string,
    };
  });
}
