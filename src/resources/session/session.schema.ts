import { Type } from '@sinclair/typebox';
import { type Field, FieldError, text } from '../../http/fields.ts';

/** A password is taken as sent (no trimming); only an empty one is refused, as DRF's serializer does. */
function password(): Field<string> {
  const base = text({ required: true, max: 1024, description: 'write-only: never shown' });
  return {
    ...base,
    parse: (value, ctx) => {
      const s = base.parse(value, ctx) as string;
      if (s === '') throw new FieldError('This field may not be blank.');
      return s;
    },
  };
}

/** Sign-in: the account's username and password, as for HTTP Basic. */
export const signInFields = {
  username: text({ required: true, max: 150, blank: false }),
  password: password(),
};

/** The signed-in session, as POST and GET /rest-api/session/ answer it. */
export const SessionRecord = Type.Object({
  username: Type.String(),
  is_admin: Type.Boolean(),
  csrf_token: Type.String({ description: 'Send it as the X-CSRF-Token header on every write (POST, PUT, PATCH, DELETE) made with the session cookie' }),
  expires: Type.String({ format: 'date-time', description: 'When the session ends, however much it is used (SESSION_HOURS after sign-in)' }),
});

/** The header that a write made with the session cookie must carry. */
export const CsrfHeaders = Type.Object({ 'x-csrf-token': Type.String({ description: "the session's csrf_token" }) });
