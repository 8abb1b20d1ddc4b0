/** Callrequest and call-result rows → JSON (the shapes: callrequest.schema.ts). */
import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { CallRequestRow, CallResultRow } from './callrequest.repository.ts';
import type { CallRequestRecord, CallResultRecord } from './callrequest.schema.ts';

export function presentCallRequest(request: FastifyRequest, row: CallRequestRow): Static<typeof CallRequestRecord> {
  const link = linker(request);
  const url = link('callrequest', row.id) as string;
  return {
    id: row.id,
    url,
    campaign: link('campaigns', row.campaign_id) as string,
    subscriber: link('subscriber-list', row.subscriber_id),
    status: row.status,
    request_uuid: row.call_uuid,
    phone_number: row.phone_number,
    callerid: row.callerid,
    aleg_gateway: link('gateway', row.gateway_id),
    attempt: row.attempt,
    hangup_cause: row.hangup_cause,
    hangup_cause_q850: row.hangup_cause_q850,
    completed: row.completed,
    call_time: isoTime(row.call_time),
    results: `${url}results/`,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}

export function presentCallResult(request: FastifyRequest, row: CallResultRow): Static<typeof CallResultRecord> {
  const link = linker(request);
  return {
    id: row.id,
    callrequest: link('callrequest', row.callrequest_id) as string,
    section: link('section-template', row.section_id),
    section_order: row.section_order,
    question: row.question,
    response: row.response,
    record_file: row.record_file,
    created_date: isoTime(row.created_date) as string,
  };
}
