import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { CsvCell } from '../../http/csv.ts';
import { linker } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import type { CdrRow } from './cdr.repository.ts';

const NullableLink = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

/** Spec §2 CDR fields plus `id` and `disposition` (contract §6). */
export const CdrRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  callid: Type.String(),
  callerid: Type.String(),
  phone_number: Type.String(),
  starting_date: Type.String({ format: 'date-time' }),
  duration: Type.Integer(),
  billsec: Type.Integer(),
  call_cost: Type.String(),
  billed_duration: Type.Integer(),
  hangup_cause_q850: Type.Integer(),
  disposition: Type.String(),
  leg_type: Type.Integer(),
  amd_status: Type.Integer(),
  callrequest: NullableLink,
  campaign: NullableLink,
  subscriber_id: NullableInt,
  contact_id: NullableInt,
});

export function presentCdr(request: FastifyRequest, row: CdrRow): Static<typeof CdrRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('cdr', row.id) as string,
    callid: row.callid,
    callerid: row.callerid,
    phone_number: row.phone_number,
    starting_date: isoTime(row.starting_date) as string,
    duration: row.duration,
    billsec: row.billsec,
    call_cost: decimalString(row.call_cost),
    billed_duration: row.billed_duration,
    hangup_cause_q850: row.hangup_cause_q850,
    disposition: row.disposition,
    leg_type: row.leg_type,
    amd_status: row.amd_status,
    callrequest: link('callrequest', row.callrequest_id),
    campaign: link('campaigns', row.campaign_id),
    subscriber_id: row.subscriber_id,
    contact_id: row.contact_id,
  };
}

/** The CSV export's columns, in order. */
export const CSV_COLUMNS = [
  'id', 'callid', 'callerid', 'phone_number', 'starting_date', 'duration', 'billsec', 'billed_duration', 'call_cost',
  'hangup_cause_q850', 'disposition', 'leg_type', 'amd_status', 'callrequest_id', 'campaign_id', 'subscriber_id', 'contact_id',
  'recording',
] as const;

/**
 * A CDR's cells in CSV_COLUMNS order (src/http/csv.ts writes them). `recording`: the download URL
 * of its call's recording (issue 16 item 6; A-legs only, the whole call's first), or ''.
 */
export function cdrCsvRow(row: CdrRow, recording = ''): CsvCell[] {
  const values: Record<(typeof CSV_COLUMNS)[number], CsvCell> = {
    ...row,
    recording,
    starting_date: isoTime(row.starting_date),
    call_cost: decimalString(row.call_cost),
  };
  return CSV_COLUMNS.map((c) => values[c]);
}
