import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { recordUrl } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { TokenListRow } from './tokens.repository.ts';
import type { TokenRecord } from './tokens.schema.ts';

export function presentToken(request: FastifyRequest, row: TokenListRow): Static<typeof TokenRecord> {
  return {
    url: recordUrl(request, 'tokens', row.id),
    id: row.id,
    user: recordUrl(request, 'users', row.user_id),
    username: row.username,
    key_prefix: row.key_prefix,
    created_date: isoTime(row.created_date) as string,
  };
}
