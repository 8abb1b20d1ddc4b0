import { Type } from '@sinclair/typebox';
import { and, eq, sql } from 'drizzle-orm';
import { campaigns, contacts, phonebooks, subscribers, SubscriberStatus } from '../../db/schema.ts';
import { choice, decimal, type FieldContext, FieldError, jsonObject, link, phone, text } from '../../http/fields.ts';
import { ownedRow } from '../campaigns/fields.ts';
import { WaitReason } from '../../campaign/contact-policy.ts';

/** A contact the caller may link: one of their phonebooks' (contract §3: contact → phonebook). */
async function visibleContact(ctx: FieldContext, id: number): Promise<boolean> {
  const owner = ctx.user.is_admin ? undefined : eq(phonebooks.user_id, ctx.user.id);
  const rows = await ctx.db
    .select({ id: contacts.id })
    .from(contacts)
    .innerJoin(phonebooks, eq(phonebooks.id, contacts.phonebook_id))
    .where(and(eq(contacts.id, id), owner))
    .limit(1);
  return rows.length > 0;
}

const zoneName = text({ max: 64 });

/** Request fields (contract §8: `campaign` and one of `contact` / `duplicate_contact`). */
export const subscriberFields = {
  contact: link(['contact'], visibleContact, { nullable: true }),
  campaign: link(['campaigns'], ownedRow(campaigns), { required: true }),
  status: choice(Object.values(SubscriberStatus)),
  full_name: text({ max: 200 }),
  additional_vars: jsonObject(),
  duplicate_contact: phone(),
  gmt_offset: decimal({ places: 2, maxDigits: 4 }),
  tz_code: {
    ...zoneName,
    async parse(value: unknown, ctx: FieldContext) {
      const name = await zoneName.parse(value, ctx);
      if (!name) return '';
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: name });
      } catch {
        throw new FieldError('Enter a valid IANA time zone, such as "Europe/Paris".');
      }
      return name;
    },
  },
};

const NullableLink = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

export const SubscriberRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  contact: NullableLink,
  campaign: Type.String({ format: 'uri' }),
  last_attempt: Type.Union([Type.String(), Type.Null()]),
  count_attempt: Type.Integer(),
  status: Type.Integer(),
  duplicate_contact: Type.String(),
  full_name: Type.String(),
  gmt_offset: Type.String(),
  tz_code: Type.String(),
  additional_vars: Type.Object({}, { additionalProperties: true }),
  scheduled_at: Type.Union([Type.String(), Type.Null()]),
  /** Why it ended (a DNC hit, no attempt left, aborted …), or, to be retried, why its last call failed (USER_BUSY …); '' if neither. */
  reason: Type.String(),
  /** Why a PENDING one is held by the contact caps or calling hours (attempts, daily, quiet, hours); else null. */
  wait_reason: Type.Union([Type.String({ enum: Object.values(WaitReason) }), Type.Null()]),
});

/**
 * The columns `scheduled_at` sets (issue 16, item 8): not called before that instant, so the
 * subscriber is due then; cleared (null), a subscriber that was waiting for it is due at once.
 */
export function scheduledAtColumns(at: string | null | undefined): { scheduled_at?: string | null; next_attempt_at?: string } {
  if (at === undefined) return {};
  if (at !== null) return { scheduled_at: at, next_attempt_at: at };
  const dueNow = sql`case when ${subscribers.next_attempt_at} = ${subscribers.scheduled_at}
      then least(${subscribers.next_attempt_at}, now()) else ${subscribers.next_attempt_at} end`;
  // (an SQL expression where Drizzle's insert type says string: valid in an UPDATE's SET)
  return { scheduled_at: null, next_attempt_at: dueNow as unknown as string };
}
