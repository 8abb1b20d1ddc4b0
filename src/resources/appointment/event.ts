/**
 * /rest-api/event/ — Newfies' calendar event: an appointment in a calendar, which its alarms
 * remind of, and which may recur by a `rule`. Not /rest-api/events/ (plural), the activity
 * stream of issue 14: a different resource. Stored in `calendar_events`. An event belongs to
 * its calendar's owner.
 */
import { Type } from '@sinclair/typebox';
import { eq, type SQL } from 'drizzle-orm';
import { calendarEvents, calendarRules, calendars, calendarUsers, EventStatus } from '../../db/schema.ts';
import { invalid } from '../../http/errors.ts';
import { choice, type FieldContext, integer, jsonObject, text } from '../../http/fields.ts';
import { queryInteger } from '../../http/filters.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource, findOwned, type Row } from './crud.ts';
import { dateTime, ownedLink } from './fields.ts';

type EventRow = typeof calendarEvents.$inferSelect;
const Link = Type.Union([Type.String({ format: 'uri' }), Type.Null()]);

export const EventRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  title: Type.String(),
  description: Type.String(),
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  creator: Link,
  created_on: Type.String({ format: 'date-time' }),
  end_recurring_period: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  rule: Link,
  calendar: Type.String({ format: 'uri' }),
  notify_count: Type.Integer(),
  status: Type.Integer(),
  data: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  parent_event: Link,
  occ_count: Type.Integer(),
});

/** The owner of the calendar `id` (the caller may see it: the link was checked). */
async function calendarOwner(ctx: FieldContext, id: number): Promise<number | undefined> {
  return (await findOwned(ctx.db, calendars, ctx.user, id))?.user_id;
}

export const eventResource = crudResource({
  name: 'event',
  table: calendarEvents,
  record: EventRecord,
  filters: (request) => {
    const calendar = queryInteger(request, 'calendar');
    return [calendar === undefined ? undefined : (eq(calendarEvents.calendar_id, calendar) as SQL)];
  },
  fields: ({ config }) => ({
    title: text({ required: true, max: 255, blank: false }),
    description: text({ max: 10_000 }),
    start: dateTime(config.timeZone, { required: true }),
    end: dateTime(config.timeZone, { required: true }),
    creator: ownedLink(['calendar-user'], calendarUsers, { nullable: true }),
    end_recurring_period: dateTime(config.timeZone, { nullable: true }),
    rule: ownedLink(['rule'], calendarRules, { nullable: true }),
    calendar: ownedLink(['calendar'], calendars, { required: true }),
    notify_count: integer({ min: 0 }),
    status: choice(Object.values(EventStatus)),
    data: jsonObject({ nullable: true }),
    parent_event: ownedLink(['event'], calendarEvents, { nullable: true }),
  }),
  async columns(ctx, v, current?: Row) {
    const start = v.start ?? (current as EventRow | undefined)?.start;
    const end = v.end ?? (current as EventRow | undefined)?.end;
    if (start && end && new Date(end) <= new Date(start)) throw invalid({ end: ['The end time must be later than the start time.'] });
    return {
      owner: v.calendar ? await calendarOwner(ctx, v.calendar) : undefined,
      values: {
        title: v.title ?? undefined,
        description: v.description ?? undefined,
        start: v.start ?? undefined,
        end: v.end ?? undefined,
        creator_id: v.creator,
        end_recurring_period: v.end_recurring_period,
        rule_id: v.rule,
        calendar_id: v.calendar ?? undefined,
        notify_count: v.notify_count ?? undefined,
        status: v.status ?? undefined,
        data: v.data,
        parent_event_id: v.parent_event,
      },
    };
  },
  present(request, r) {
    const row = r as unknown as EventRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('event', row.id) as string,
      title: row.title,
      description: row.description,
      start: isoTime(row.start) as string,
      end: isoTime(row.end) as string,
      creator: link('calendar-user', row.creator_id),
      created_on: isoTime(row.created_on) as string,
      end_recurring_period: isoTime(row.end_recurring_period),
      rule: link('rule', row.rule_id),
      calendar: link('calendar', row.calendar_id) as string,
      notify_count: row.notify_count,
      status: row.status,
      data: (row.data ?? null) as Record<string, unknown> | null,
      parent_event: link('event', row.parent_event_id),
      occ_count: row.occ_count,
    };
  },
});
