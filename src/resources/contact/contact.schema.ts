import { Type } from '@sinclair/typebox';
import { ContactStatus } from '../../db/schema.ts';
import { choice, jsonObject, link, phone, text } from '../../http/fields.ts';
import { findPhonebook } from '../phonebook/phonebook.repository.ts';

/** Request fields (contract §8: `contact` and `phonebook` required). */
export const contactFields = {
  contact: phone({ required: true }),
  full_name: text({ max: 200 }),
  phonebook: link(['phonebook'], async (ctx, id) => Boolean(await findPhonebook(ctx.db, ctx.user, id)), { required: true }),
  // contract §1: an object, or a string holding a JSON object.
  additional_vars: jsonObject({ nullable: true }),
  status: choice(Object.values(ContactStatus), { description: '1 active, 0 inactive (not dialled)' }),
};

export const ContactRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  phonebook: Type.String({ format: 'uri' }),
  contact: Type.String(),
  full_name: Type.String(),
  additional_vars: Type.String({ description: 'JSON text of an object (contract §1)' }),
  status: Type.Integer(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
