import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { SmsTemplateRow } from './sms-template.repository.ts';
import type { SmsTemplateRecord } from './sms-template.schema.ts';

export function presentSmsTemplate(request: FastifyRequest, row: SmsTemplateRow): Static<typeof SmsTemplateRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('sms-template', row.id) as string,
    label: row.label,
    template_key: row.template_key,
    sender_phonenumber: row.sender_phonenumber,
    sms_text: row.sms_text,
    user: link('users', row.user_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
