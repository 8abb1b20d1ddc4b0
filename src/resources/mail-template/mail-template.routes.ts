/** /rest-api/mail-template/ — Newfies' mail templates (issue 17): the template resource (templates/template-resource.ts). */
import { mailTemplates } from '../../db/schema.ts';
import { templateResource } from '../templates/template-resource.ts';
import { MailTemplateRecord, mailTemplateFields } from './mail-template.schema.ts';

export const mailTemplateResource = templateResource({
  name: 'mail-template',
  noun: 'mail template',
  table: mailTemplates,
  fields: mailTemplateFields,
  record: MailTemplateRecord,
  text: ['from_email', 'from_name', 'subject', 'message_plaintext', 'message_html'],
});
