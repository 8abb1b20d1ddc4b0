import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { DidRow } from './did.repository.ts';
import type { DidRecord } from './did.schema.ts';

export function presentDid(request: FastifyRequest, row: DidRow): Static<typeof DidRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('did', row.id) as string,
    did_number: row.did_number,
    user: link('users', row.user_id) as string,
    campaign: link('campaigns', row.campaign_id),
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
