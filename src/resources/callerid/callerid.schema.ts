import { Type } from '@sinclair/typebox';
import { type Field, FieldError, link, phone, text } from '../../http/fields.ts';
import { findCalleridGroup } from '../callerid-group/callerid-group.repository.ts';

/** The areacode that matches any number (contract §6). */
export const ANY_AREACODE = '*';

/**
 * An area code as stored: `*`, or a number prefix (an optional `+` and 1–20 digits, separators
 * dropped as in phone numbers); "" or null: none. Undefined when it is neither.
 */
export function normalizeAreacode(input: string): string | undefined {
  const s = input.trim().replace(/[\s\-.()]/g, '');
  return s === '' || s === ANY_AREACODE || /^\+?\d{1,20}$/.test(s) ? s : undefined;
}

function areacode(): Field<string> {
  return {
    schema: Type.Union([Type.String({ maxLength: 20, examples: ['1203', '*'] }), Type.Integer(), Type.Null()], {
      description: 'A number prefix, or * for any number',
    }),
    required: false,
    parse(value) {
      if (value === null) return '';
      const code = typeof value === 'string' || typeof value === 'number' ? normalizeAreacode(String(value)) : undefined;
      if (code === undefined) throw new FieldError('Enter a number prefix (digits) or *.');
      return code;
    },
  };
}

/** Request fields (contract §8: `callerid_num` and `callerid_group` required). */
export const calleridFields = {
  areacode: areacode(),
  callerid_num: phone({ required: true }),
  callerid_name: text({ max: 100 }),
  callerid_group: link(
    ['callerid_group'],
    async (ctx, id) => Boolean(await findCalleridGroup(ctx.db, ctx.user, id)),
    { required: true },
  ),
};

export const CalleridRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  areacode: Type.String(),
  callerid_num: Type.String(),
  callerid_name: Type.String(),
  callerid_group: Type.String({ format: 'uri' }),
  // Read-only use counters (issue 16 item 5): calls started, ended and answered today (TIME_ZONE's day), all-time totals.
  calls_today: Type.Integer({ description: 'Calls that showed this number today (read-only)' }),
  ended_today: Type.Integer({ description: 'Of them, calls that have ended (read-only)' }),
  answered_today: Type.Integer({ description: 'Of them, calls answered (read-only)' }),
  calls_total: Type.Integer({ description: 'Calls that showed this number, ever (read-only)' }),
  answered_total: Type.Integer({ description: 'Of them, calls answered (read-only)' }),
  resting_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: "Under its group's answer-rate floor: not used before this time (read-only)",
  }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
