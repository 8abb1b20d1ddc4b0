import { Type } from '@sinclair/typebox';
import { text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** Request fields (contract §8: `name` required). */
export const calleridGroupFields = {
  name: text({ required: true, max: 100, blank: false }),
  description: text({ max: 2000 }),
  user: userLink(),
};

export const CalleridGroupRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  description: Type.String(),
  user: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
