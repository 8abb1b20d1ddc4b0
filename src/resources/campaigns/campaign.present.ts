import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { WindowFields } from '../../campaign/window.ts';
import { linker } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import { type CampaignRow, gatewayStatuses, phonebooksOf, totalsOf } from './campaign.repository.ts';
import type { CampaignRecord } from './campaign.schema.ts';
import { dialingState, progressOf } from './campaign.state.ts';

export type CampaignJson = Static<typeof CampaignRecord>;

/** The calling window of a voice or SMS campaign row, as the record shows it. */
export function presentWindow(row: WindowFields) {
  return {
    daily_start_time: row.daily_start_time,
    daily_stop_time: row.daily_stop_time,
    monday: row.monday,
    tuesday: row.tuesday,
    wednesday: row.wednesday,
    thursday: row.thursday,
    friday: row.friday,
    saturday: row.saturday,
    sunday: row.sunday,
  };
}

/** Presents campaign rows, loading what the record adds (phonebooks, progress) in a few set queries. */
export async function presentCampaigns(
  request: FastifyRequest,
  db: Db,
  rows: CampaignRow[],
  { timeZone, now = new Date() }: { timeZone: string; now?: Date },
): Promise<CampaignJson[]> {
  const ids = rows.map((r) => r.id);
  const gatewayIds = rows.flatMap((r) => (r.aleg_gateway_id ? [r.aleg_gateway_id] : []));
  const [books, totals, gateways] = await Promise.all([phonebooksOf(db, ids), totalsOf(db, ids), gatewayStatuses(db, gatewayIds)]);
  const link = linker(request);
  return rows.map((row) => ({
    id: row.id,
    url: link('campaigns', row.id) as string,
    campaign_code: row.campaign_code,
    name: row.name,
    description: row.description,
    callerid: row.callerid,
    caller_name: row.caller_name,
    phonebook: (books.get(row.id) ?? []).map((id) => link('phonebook', id) as string),
    startingdate: isoTime(row.startingdate),
    expirationdate: isoTime(row.expirationdate),
    frequency: row.frequency,
    max_aleg: row.max_aleg,
    max_xfer: row.max_xfer,
    dial_method: row.dial_method,
    agent_dial_rate: decimalString(row.agent_dial_rate, 2),
    callmaxduration: row.callmaxduration,
    maxretry: row.maxretry,
    intervalretry: row.intervalretry,
    calltimeout: row.calltimeout,
    aleg_gateway: link('gateway', row.aleg_gateway_id),
    sms_gateway: link('sms-gateway', row.sms_gateway_id),
    object_id: row.survey_id,
    extra_data: row.extra_data,
    voicemail: row.voicemail,
    amd_behavior: row.amd_behavior,
    voicemail_audiofile: link('audio-files', row.voicemail_audiofile_id),
    dnc: link('dnc', row.dnc_id),
    callerid_group: link('callerid_group', row.callerid_group_id),
    user: link('users', row.user_id) as string,
    ...presentWindow(row),
    timezone_dialing: row.timezone_dialing,
    completion_enabled: row.completion_enabled,
    end_when_done: row.end_when_done,
    has_been_started: row.has_been_started,
    totalcontact: row.totalcontact,
    status: row.status,
    dialing_state: dialingState(row, now, timeZone, gateways.get(row.aleg_gateway_id ?? 0), totals.get(row.id)),
    progress: progressOf(totals.get(row.id)),
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  }));
}
