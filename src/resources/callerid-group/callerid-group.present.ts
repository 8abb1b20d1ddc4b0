import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { CalleridGroupRow } from './callerid-group.repository.ts';
import type { CalleridGroupRecord } from './callerid-group.schema.ts';

export function presentCalleridGroup(request: FastifyRequest, row: CalleridGroupRow): Static<typeof CalleridGroupRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('callerid_group', row.id) as string,
    name: row.name,
    description: row.description,
    user: link('users', row.user_id) as string,
    daily_cap: row.daily_cap,
    min_answer_rate: row.min_answer_rate === null ? null : Number(row.min_answer_rate),
    answer_rate_min_calls: row.answer_rate_min_calls,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
