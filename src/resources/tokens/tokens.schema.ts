import { Type } from '@sinclair/typebox';
import { userLink } from '../users/users.fields.ts';

/** Create: whose token (an admin may name anyone; anyone else only themself; default the caller). */
export const tokenFields = { user: userLink() };

export const TokenRecord = Type.Object({
  url: Type.String({ format: 'uri' }),
  id: Type.Integer(),
  user: Type.String({ format: 'uri' }),
  username: Type.String(),
  key_prefix: Type.String({ description: 'The start of the key, to recognise it; the key itself is shown once, at creation' }),
  created_date: Type.String({ format: 'date-time' }),
});

/** The answer to a create: the record and, this once, the key (`Authorization: Token <key>`). */
export const TokenCreated = Type.Composite([TokenRecord, Type.Object({ key: Type.String() })]);
