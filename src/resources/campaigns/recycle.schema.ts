/**
 * POST /rest-api/campaigns/<id>/recycle/ (issue 16, item 9): which final subscribers go back to
 * PENDING — `statuses` (final subscriber statuses, default [4] FAIL), `dispositions` (of their
 * last call, CDR names: contract §4) and `last_attempt_before` (a campaign date, contract §1).
 */
import { Type } from '@sinclair/typebox';
import { SubscriberStatus } from '../../db/schema.ts';
import { type Field, FieldError } from '../../http/fields.ts';
import { campaignDate } from './fields.ts';

/** The statuses a subscriber may be recycled from: the final ones (contract §4). */
export const recyclableStatuses: readonly number[] = [
  SubscriberStatus.Abort,
  SubscriberStatus.Fail,
  SubscriberStatus.Sent,
  SubscriberStatus.NotAuthorized,
  SubscriberStatus.Completed,
];

/** CDR dispositions (contract §4). */
export const dispositions = ['ANSWER', 'BUSY', 'NOANSWER', 'REJECTED', 'CANCEL', 'CONGESTION', 'FAILED'] as const;

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

const status = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!recyclableStatuses.includes(n)) {
    throw new FieldError(`"${String(v)}" is not a final subscriber status: use ${recyclableStatuses.join(', ')}.`);
  }
  return n;
};

const disposition = (v: unknown): string => {
  const d = typeof v === 'string' ? v.trim().toUpperCase() : '';
  if (!(dispositions as readonly string[]).includes(d)) throw new FieldError(`"${String(v)}" is not a disposition: use ${dispositions.join(', ')}.`);
  return d;
};

/** The request fields; `timeZone` reads a date without offset (contract §1). */
export function recycleFields(timeZone: string) {
  return {
    statuses: listOf(status, Type.Array(Type.Integer({ enum: [...recyclableStatuses] }), { description: 'default [4] (FAIL)' })),
    dispositions: listOf(disposition, Type.Array(Type.String({ enum: [...dispositions] }), { description: 'of the last call; default any' })),
    last_attempt_before: campaignDate(timeZone),
  };
}

export const RecycleResult = Type.Object({ recycled: Type.Integer() });
