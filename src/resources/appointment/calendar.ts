/** /rest-api/calendar/ — a calendar of events (Newfies' Calendar); `user` is its calendar user. */
import { Type } from '@sinclair/typebox';
import { calendarUsers, calendars } from '../../db/schema.ts';
import { integer, text } from '../../http/fields.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource } from './crud.ts';
import { ownedLink } from './fields.ts';

type CalendarRow = typeof calendars.$inferSelect;

export const CalendarRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  user: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  max_concurrent: Type.Integer(),
  created_date: Type.String({ format: 'date-time' }),
});

export const calendarResource = crudResource({
  name: 'calendar',
  table: calendars,
  record: CalendarRecord,
  fields: () => ({
    name: text({ required: true, max: 200, blank: false }),
    user: ownedLink(['calendar-user'], calendarUsers, { nullable: true }),
    max_concurrent: integer({ min: 0, max: 100_000 }),
  }),
  columns: (_ctx, v) => ({
    values: { name: v.name ?? undefined, calendar_user_id: v.user, max_concurrent: v.max_concurrent ?? undefined },
  }),
  present(request, r) {
    const row = r as unknown as CalendarRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('calendar', row.id) as string,
      name: row.name,
      user: link('calendar-user', row.calendar_user_id),
      max_concurrent: row.max_concurrent,
      created_date: isoTime(row.created_date) as string,
    };
  },
});
