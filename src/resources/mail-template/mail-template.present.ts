import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { MailTemplateRow } from './mail-template.repository.ts';
import type { MailTemplateRecord } from './mail-template.schema.ts';

export function presentMailTemplate(request: FastifyRequest, row: MailTemplateRow): Static<typeof MailTemplateRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('mail-template', row.id) as string,
    label: row.label,
    template_key: row.template_key,
    from_email: row.from_email,
    from_name: row.from_name,
    subject: row.subject,
    message_plaintext: row.message_plaintext,
    message_html: row.message_html,
    user: link('users', row.user_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
