import { Type } from '@sinclair/typebox';
import { decimal, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

export const paymentFields = {
  amount: decimal({ required: true, places: 5, positive: true }),
  user: userLink({ required: true }),
  description: text({ max: 2000 }),
};

/** A payment has no `url` and no detail route (contract §8). */
export const PaymentRecord = Type.Object({
  amount: Type.String({ examples: ['1.00000'] }),
  user: Type.String({ format: 'uri' }),
  description: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
});
