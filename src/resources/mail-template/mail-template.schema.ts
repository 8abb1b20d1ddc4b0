/**
 * A mail template (Newfies' mod_mailer MailTemplate, issue 17): the fields of its record as
 * Newfies lists them, plus `id` and `user` (ours are owner-scoped, contract §3).
 */
import { Type } from '@sinclair/typebox';
import { FieldError, type Field, text } from '../../http/fields.ts';
import { PLACEHOLDERS_NOTE } from '../sms-template/sms-template.schema.ts';
import { userLink } from '../users/users.fields.ts';

/** An e-mail address, or '' for none (Django's EmailField message). */
function email(): Field<string | null> {
  const field = text({ max: 254 });
  return {
    ...field,
    parse: async (value, ctx) => {
      const s = await field.parse(value, ctx);
      if (s && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)) throw new FieldError('Enter a valid email address.');
      return s;
    },
  };
}

/** Request fields (`label`, `template_key` required). */
export const mailTemplateFields = {
  label: text({ required: true, max: 75, blank: false }),
  template_key: text({ required: true, max: 30, blank: false, description: 'Unique among the owner\'s mail templates' }),
  from_email: email(),
  from_name: text({ max: 75 }),
  subject: text({ max: 200, description: PLACEHOLDERS_NOTE }),
  message_plaintext: text({ max: 10_000, description: PLACEHOLDERS_NOTE }),
  message_html: text({ max: 10_000, description: PLACEHOLDERS_NOTE }),
  user: userLink(),
};

export const MailTemplateRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  label: Type.String(),
  template_key: Type.String(),
  from_email: Type.String(),
  from_name: Type.String(),
  subject: Type.String(),
  message_plaintext: Type.String(),
  message_html: Type.String(),
  user: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
