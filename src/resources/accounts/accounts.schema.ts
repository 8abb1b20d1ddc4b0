import { Type } from '@sinclair/typebox';
import { boolean, decimal, type Field, FieldError, integer, text } from '../../http/fields.ts';
import { countryCode } from '../../http/phone.ts';
import { queueFields } from '../queue/queue.schema.ts';
import { CallingHoursRecord, callingHoursField, ContactCapsRecord, contactCapsField } from './compliance.fields.ts';

/**
 * An account's fields (issue 11 §2). The column limits are checked here; the account rules
 * (username characters, unique names, e-mail, the last admin) by users.service, for the CLI too.
 */
/**
 * The country the account's numbers written without '+' are read in (contract §1), overriding
 * DEFAULT_COUNTRY: an ISO 3166 alpha-2 code (any case); null or "": DEFAULT_COUNTRY.
 */
const defaultCountry: Field<string | null> = {
  schema: Type.Union([Type.String({ maxLength: 2 }), Type.Null()], {
    description: "ISO 3166 alpha-2 country (e.g. \"US\") this account's numbers written without + are read in; null: DEFAULT_COUNTRY",
  }),
  required: false,
  parse(value) {
    if (value === null || value === '') return null;
    const code = typeof value === 'string' ? countryCode(value) : undefined;
    if (!code) throw new FieldError('Enter a valid ISO 3166 alpha-2 country code, such as "US".');
    return code;
  },
};

export const accountFields = {
  username: text({ required: true, max: 150, blank: false }),
  password: text({ required: true, max: 1024, blank: false, description: 'write-only: never shown' }),
  is_admin: boolean(),
  is_active: boolean({ description: 'false: the user can no longer authenticate (password or token)' }),
  email: text({ max: 254 }),
  first_name: text({ max: 150 }),
  last_name: text({ max: 150 }),
  balance: decimal({ places: 5, maxDigits: 16 }),
  call_rate: decimal({ places: 5, maxDigits: 12, min: 0 }),
  sms_rate: decimal({ places: 5, maxDigits: 12, min: 0 }),
  balance_low_threshold: decimal({ places: 5, maxDigits: 16, nullable: true, description: 'a balance falling below it is a balance.low event; null: none' }),
  recording_retention_days: integer({ min: 1, max: 36_500, nullable: true, description: "the user's call recordings older than this many days are deleted, files and rows; null: kept" }),
  contact_caps: contactCapsField,
  calling_hours: callingHoursField,
  default_country: defaultCountry,
};

export const AccountRecord = Type.Object({
  url: Type.String({ format: 'uri' }),
  id: Type.Integer(),
  /** The same user in the read-only users resource (contract §3), as `user` links name it. */
  user: Type.String({ format: 'uri' }),
  username: Type.String(),
  is_admin: Type.Boolean(),
  is_active: Type.Boolean(),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  balance: Type.Number(),
  call_rate: Type.Number(),
  sms_rate: Type.Number(),
  balance_low_threshold: Type.Union([Type.Number(), Type.Null()]),
  recording_retention_days: Type.Union([Type.Integer(), Type.Null()]),
  contact_caps: ContactCapsRecord,
  calling_hours: CallingHoursRecord,
  default_country: Type.Union([Type.String(), Type.Null()]),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

/** A queue created for an account: the queue's fields, its owner given by the URL. */
const { user: _owner, ...ownedQueueFields } = queueFields;
export const accountQueueFields = { ...ownedQueueFields, name: text({ required: true, max: 100, blank: false }) };
