import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { PhonebookRow } from './phonebook.repository.ts';
import type { PhonebookRecord } from './phonebook.schema.ts';

export function presentPhonebook(request: FastifyRequest, row: PhonebookRow): Static<typeof PhonebookRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('phonebook', row.id) as string,
    name: row.name,
    description: row.description,
    user: link('users', row.user_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
