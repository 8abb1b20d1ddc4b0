import { Type } from '@sinclair/typebox';
import { campaigns } from '../../db/schema.ts';
import { link, phone } from '../../http/fields.ts';
import { ownedRow } from '../campaigns/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** Request fields (contract §8: `did_number` required; `campaign: null` unassigns). */
export const didFields = {
  did_number: phone({ required: true }),
  user: userLink(),
  campaign: link(['campaigns'], ownedRow(campaigns), { nullable: true }),
};

export const DidRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  did_number: Type.String(),
  user: Type.String({ format: 'uri' }),
  campaign: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
