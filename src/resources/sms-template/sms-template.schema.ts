/**
 * An SMS template (Newfies' sms_module SMSTemplate, issue 17): the fields of its record as
 * Newfies lists them, plus `id` and `user` (ours are owner-scoped, contract §3).
 */
import { Type } from '@sinclair/typebox';
import { text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

export const PLACEHOLDERS_NOTE = 'May use {full_name} and the keys of the contact\'s additional_vars ({debt}), as an SMS campaign\'s text_message';

/** Request fields (`label`, `template_key`, `sms_text` required). */
export const smsTemplateFields = {
  label: text({ required: true, max: 75, blank: false }),
  template_key: text({ required: true, max: 30, blank: false, description: 'Unique among the owner\'s SMS templates' }),
  sender_phonenumber: text({ max: 20, description: 'The sender (number or name) of messages sent from this template' }),
  sms_text: text({ required: true, max: 10_000, blank: false, description: PLACEHOLDERS_NOTE }),
  user: userLink(),
};

export const SmsTemplateRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  label: Type.String(),
  template_key: Type.String(),
  sender_phonenumber: Type.String(),
  sms_text: Type.String(),
  user: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
