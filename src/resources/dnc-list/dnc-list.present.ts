import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { DncListRow } from './dnc-list.repository.ts';
import type { DncListRecord } from './dnc-list.schema.ts';

/** The path segment of every DNC list link (contract §1, §8: /rest-api/dnc/<id>/). */
export const DNC_LINK = 'dnc';

export function presentDncList(request: FastifyRequest, row: DncListRow): Static<typeof DncListRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link(DNC_LINK, row.id) as string,
    name: row.name,
    user: link('users', row.user_id) as string,
    is_global: row.is_global,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
