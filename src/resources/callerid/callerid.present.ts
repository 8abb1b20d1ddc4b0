import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { CalleridRow } from './callerid.repository.ts';
import type { CalleridRecord } from './callerid.schema.ts';

export function presentCallerid(request: FastifyRequest, row: CalleridRow): Static<typeof CalleridRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('callerid', row.id) as string,
    areacode: row.areacode,
    callerid_num: row.callerid_num,
    callerid_name: row.callerid_name,
    callerid_group: link('callerid_group', row.callerid_group_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
