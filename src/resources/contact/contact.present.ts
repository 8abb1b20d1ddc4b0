import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { ContactRow } from './contact.repository.ts';
import type { ContactRecord } from './contact.schema.ts';

export function presentContact(request: FastifyRequest, row: ContactRow): Static<typeof ContactRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('contact', row.id) as string,
    phonebook: link('phonebook', row.phonebook_id) as string,
    contact: row.contact,
    full_name: row.full_name,
    // contract §1: a Contact's additional_vars is returned as a string holding the JSON object.
    additional_vars: JSON.stringify(row.additional_vars ?? {}),
    status: row.status,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
