import { Type } from '@sinclair/typebox';
import { decimal, type Field, FieldError, integer, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** A share from 0 to 1 with at most 3 decimals, or null. */
function share(description: string): Field<string | null> {
  const base = decimal({ places: 3, maxDigits: 4, min: 0, nullable: true, description });
  return {
    ...base,
    parse(value, ctx) {
      const out = base.parse(value, ctx) as string | null;
      if (out !== null && Number(out) > 1) throw new FieldError('Ensure this value is less than or equal to 1.');
      return out;
    },
  };
}

/** Request fields (contract §8: `name` required). */
export const calleridGroupFields = {
  name: text({ required: true, max: 100, blank: false }),
  description: text({ max: 2000 }),
  user: userLink(),
  // Rotation (issue 16 item 5; README "Caller-id rotation").
  daily_cap: integer({ min: 1, nullable: true, description: 'At most this many calls per number a day; null: no cap' }),
  min_answer_rate: share('A number answered less than this share (0–1) today rests for a day; null: no floor'),
  answer_rate_min_calls: integer({ min: 1, description: 'Calls a number must have ended today before its answer rate is judged (default 20)' }),
};

export const CalleridGroupRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  description: Type.String(),
  user: Type.String({ format: 'uri' }),
  daily_cap: Type.Union([Type.Integer(), Type.Null()]),
  min_answer_rate: Type.Union([Type.Number(), Type.Null()]),
  answer_rate_min_calls: Type.Integer(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
