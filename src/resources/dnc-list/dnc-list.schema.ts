import { Type } from '@sinclair/typebox';
import { boolean, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** Request fields (contract §8: `name` required). */
export const dncListFields = {
  name: text({ required: true, max: 100, blank: false }),
  user: userLink(),
  is_global: boolean({ description: "A global list applies to every campaign of its owner (an admin's: to all)" }),
};

export const DncListRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  user: Type.String({ format: 'uri' }),
  is_global: Type.Boolean(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
