import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { usageOn } from '../../campaign/callerid-usage.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { CalleridRow } from './callerid.repository.ts';
import type { CalleridRecord } from './callerid.schema.ts';

/** `today`: the day (campaign/callerid-usage.ts usageDay) whose counters are shown. */
export function presentCallerid(request: FastifyRequest, row: CalleridRow, today: string): Static<typeof CalleridRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('callerid', row.id) as string,
    areacode: row.areacode,
    callerid_num: row.callerid_num,
    callerid_name: row.callerid_name,
    callerid_group: link('callerid_group', row.callerid_group_id) as string,
    ...usageOn(row, today),
    calls_total: Number(row.calls_total),
    answered_total: Number(row.answered_total),
    resting_until: isoTime(row.resting_until),
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
