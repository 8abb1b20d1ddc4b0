/**
 * POST /rest-api/campaigns/<id>/recycle/ (issue 16, item 9) and /rest-api/sms-campaigns/<id>/recycle/:
 * which final subscribers go back to PENDING — `statuses` (final subscriber statuses, default [4]
 * FAIL), then, for a voice campaign, `dispositions` (of their last call, CDR names: contract §4),
 * for an SMS campaign, `message_statuses` (of their last message: sent, delivered, failed), and
 * for both `last_attempt_before` (a campaign date, contract §1).
 */
import { Type } from '@sinclair/typebox';
import { SmsMessageStatus, SmsSubscriberStatus, SubscriberStatus } from '../../db/schema.ts';
import { type Field, FieldError } from '../../http/fields.ts';
import { campaignDate } from './fields.ts';

/** The statuses a voice subscriber may be recycled from: the final ones (contract §4). */
export const recyclableStatuses: readonly number[] = [
  SubscriberStatus.Abort,
  SubscriberStatus.Fail,
  SubscriberStatus.Sent,
  SubscriberStatus.NotAuthorized,
  SubscriberStatus.Completed,
];

/** The final SMS subscriber statuses (contract §4). */
export const recyclableSmsStatuses: readonly number[] = [
  SmsSubscriberStatus.Abort,
  SmsSubscriberStatus.Fail,
  SmsSubscriberStatus.Complete,
  SmsSubscriberStatus.NotAuthorized,
];

/** CDR dispositions (contract §4). */
export const dispositions = ['ANSWER', 'BUSY', 'NOANSWER', 'REJECTED', 'CANCEL', 'CONGESTION', 'FAILED'] as const;

/** The statuses a message ends in (sms-message `status`; 'unsent' is never a subscriber's last once it is final). */
export const finalMessageStatuses = [SmsMessageStatus.Sent, SmsMessageStatus.Delivered, SmsMessageStatus.Failed] as const;

/** A non-empty list whose items `parse` reads (a bare item is a list of one). */
function listOf<T>(item: (v: unknown) => T, schema: ReturnType<typeof Type.Array>): Field<T[] | null> {
  return {
    schema: Type.Union([schema, Type.Null()]),
    required: false,
    parse(value) {
      if (value === null) return null;
      const list = Array.isArray(value) ? value : [value];
      if (list.length === 0) throw new FieldError('This list may not be empty.');
      return list.map(item);
    },
  };
}

/** Reads a final subscriber status out of `allowed`. */
const statusOf = (allowed: readonly number[]) => (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!allowed.includes(n)) throw new FieldError(`"${String(v)}" is not a final subscriber status: use ${allowed.join(', ')}.`);
  return n;
};

/** Reads one of `words` (any case) as it is spelled there. */
const wordOf = (words: readonly string[], what: string, upper: boolean) => (v: unknown): string => {
  const w = typeof v === 'string' ? (upper ? v.trim().toUpperCase() : v.trim().toLowerCase()) : '';
  if (!words.includes(w)) throw new FieldError(`"${String(v)}" is not ${what}: use ${words.join(', ')}.`);
  return w;
};

const statusesField = (allowed: readonly number[]) =>
  listOf(statusOf(allowed), Type.Array(Type.Integer({ enum: [...allowed] }), { description: 'default [4] (FAIL)' }));

/** The voice request's fields; `timeZone` reads a date without offset (contract §1). */
export function recycleFields(timeZone: string) {
  return {
    statuses: statusesField(recyclableStatuses),
    dispositions: listOf(wordOf(dispositions, 'a disposition', true), Type.Array(Type.String({ enum: [...dispositions] }), { description: 'of the last call; default any' })),
    last_attempt_before: campaignDate(timeZone),
  };
}

/** The SMS request's fields. */
export function smsRecycleFields(timeZone: string) {
  return {
    statuses: statusesField(recyclableSmsStatuses),
    message_statuses: listOf(
      wordOf(finalMessageStatuses, 'the status of a sent message', false),
      Type.Array(Type.String({ enum: [...finalMessageStatuses] }), { description: 'of the last message; default any' }),
    ),
    last_attempt_before: campaignDate(timeZone),
  };
}

export const RecycleResult = Type.Object({ recycled: Type.Integer() });
