import { Type } from '@sinclair/typebox';
import { link, phone } from '../../http/fields.ts';
import { findDncList } from '../dnc-list/dnc-list.repository.ts';

/** Request fields (contract §8: `phone_number` and `dnc` required; `dnc` as dnc or dnc-list path). */
export const dncContactFields = {
  phone_number: phone({ required: true }),
  dnc: link(['dnc', 'dnc-list'], async (ctx, id) => Boolean(await findDncList(ctx.db, ctx.user, id)), { required: true }),
};

export const DncContactRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  dnc: Type.String({ format: 'uri' }),
  phone_number: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
