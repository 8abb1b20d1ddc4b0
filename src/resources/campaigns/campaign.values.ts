/** Parsed campaign request fields → campaign columns (API names differ for links only). */
import type { Parsed } from '../../http/fields.ts';
import type { CampaignInsert } from './campaign.repository.ts';
import type { CampaignFields } from './campaign.schema.ts';

type Values = Parsed<CampaignFields>;

const plain = [
  'name', 'description', 'callerid', 'caller_name', 'startingdate', 'expirationdate', 'frequency', 'max_aleg',
  'max_xfer', 'dial_method', 'agent_dial_rate', 'callmaxduration', 'maxretry', 'intervalretry', 'calltimeout',
  'extra_data', 'voicemail', 'amd_behavior', 'daily_start_time', 'daily_stop_time', 'monday', 'tuesday',
  'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'timezone_dialing', 'end_when_done', 'completion_enabled',
] as const;

const links = {
  aleg_gateway: 'aleg_gateway_id',
  sms_gateway: 'sms_gateway_id',
  object_id: 'survey_id',
  voicemail_audiofile: 'voicemail_audiofile_id',
  dnc: 'dnc_id',
  callerid_group: 'callerid_group_id',
  user: 'user_id',
} as const;

/** Not-null text/number/boolean columns: a null in the request leaves them unchanged. */
const notNullable = new Set<string>(plain.filter((k) => k !== 'startingdate' && k !== 'expirationdate'));

/** The columns the request sets (status and phonebook are handled by the service). */
export function campaignColumns(values: Values): Partial<CampaignInsert> {
  const out: Record<string, unknown> = {};
  for (const key of plain) {
    const v = values[key];
    if (v === undefined || (v === null && notNullable.has(key))) continue;
    out[key] = v;
  }
  for (const [field, column] of Object.entries(links)) {
    const v = values[field as keyof typeof links];
    if (v !== undefined && !(v === null && (field === 'user' || field === 'aleg_gateway' || field === 'object_id'))) {
      out[column] = v;
    }
  }
  return out as Partial<CampaignInsert>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Contract §5 defaults: starting now, expiring a day after the start (voice and SMS campaigns). */
export function withDateDefaults<T extends { startingdate?: string | null; expirationdate?: string | null }>(columns: T, now: Date): T {
  const start = columns.startingdate ?? now.toISOString();
  const expiration = columns.expirationdate ?? new Date(new Date(start).getTime() + DAY_MS).toISOString();
  return { ...columns, startingdate: start, expirationdate: expiration };
}
