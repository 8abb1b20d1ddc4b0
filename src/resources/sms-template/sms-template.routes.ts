/** /rest-api/sms-template/ — Newfies' SMS templates (issue 17): the template resource (templates/template-resource.ts). */
import { smsTemplates } from '../../db/schema.ts';
import { templateResource } from '../templates/template-resource.ts';
import { SmsTemplateRecord, smsTemplateFields } from './sms-template.schema.ts';

export const smsTemplateResource = templateResource({
  name: 'sms-template',
  noun: 'sms template',
  table: smsTemplates,
  fields: smsTemplateFields,
  record: SmsTemplateRecord,
  text: ['sender_phonenumber', 'sms_text'],
});
