/**
 * An account's contact caps and legal calling hours (issue 16, items 3–4) as API fields: the
 * rules are src/campaign/contact-policy.ts's, shared with the instance-wide settings
 * (CONTACT_CAPS, CALLING_HOURS) and the engine.
 */
import { Type } from '@sinclair/typebox';
import { type CallingHours, type ContactCaps, parseCallingHours, parseContactCaps } from '../../campaign/contact-policy.ts';
import { type Field, FieldError } from '../../http/fields.ts';

const Count = Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]);

/** The caps as the record shows them (null: off). */
export const ContactCapsRecord = Type.Union([
  Type.Object({ attempts: Count, window_days: Count, quiet_days: Count, daily: Count }),
  Type.Null(),
]);

/** The hours as the record shows them (null: off). */
export const CallingHoursRecord = Type.Union([Type.Object({ start: Type.String(), end: Type.String() }), Type.Null()]);

function policyField<T>(schema: ReturnType<typeof Type.Union>, description: string, parse: (v: unknown) => { value: T | null } | { error: string }): Field<T | null> {
  return {
    schema: { ...schema, description },
    required: false,
    parse: (value) => {
      const parsed = parse(value);
      if ('error' in parsed) throw new FieldError(parsed.error);
      return parsed.value;
    },
  };
}

export const contactCapsField = policyField<ContactCaps>(
  Type.Union([ContactCapsRecord, Type.Literal('regulation_f')]),
  'Caps on call attempts to one number across all of the account\'s campaigns: at most `attempts` in a rolling `window_days`, at most `daily` in 24 hours, none for `quiet_days` after a conversation; each part may be null. "regulation_f" = 7 in 7 days and a 7-day quiet period. null: off.',
  parseContactCaps,
);

export const callingHoursField = policyField<CallingHours>(
  Type.Union([CallingHoursRecord, Type.String({ examples: ['08:00-21:00'] })]),
  'Legal calling hours, read in each contact\'s local time, on top of every campaign\'s window: {"start": "08:00", "end": "21:00"} (or "08:00-21:00"). null: off.',
  parseCallingHours,
);
