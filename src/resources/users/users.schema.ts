import { Type } from '@sinclair/typebox';

export const UserRecord = Type.Object({
  url: Type.String({ format: 'uri' }),
  username: Type.String(),
  last_name: Type.String(),
  first_name: Type.String(),
  email: Type.String(),
  balance: Type.Number(),
  call_rate: Type.Number(),
  sms_rate: Type.Number(),
});
