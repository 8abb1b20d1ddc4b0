import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { DNC_LINK } from '../dnc-list/dnc-list.present.ts';
import type { DncContactRow } from './dnc-contact.repository.ts';
import type { DncContactRecord } from './dnc-contact.schema.ts';

export function presentDncContact(request: FastifyRequest, row: DncContactRow): Static<typeof DncContactRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('dnc-contact', row.id) as string,
    dnc: link(DNC_LINK, row.dnc_id) as string,
    phone_number: row.phone_number,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
