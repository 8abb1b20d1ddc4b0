/**
 * /rest-api/calendar-user/ and /rest-api/calendar-user-profile/ — the people a user keeps
 * calendars for. In Newfies a calendar user is a sub-user (a Django account whose profile names
 * its manager and a calendar setting). Here our users are accounts with a balance and rates, so
 * a calendar user is a record its manager (the caller) owns, not an account that signs in: a
 * `password` in the request is ignored, and the record never grants access to anything. Its
 * profile is the same row read and updated through calendar-user-profile (Newfies' profile
 * fields; the profile's `user` is the calendar user's id, as Newfies shows it).
 */
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import { calendarSettings, calendarUsers } from '../../db/schema.ts';
import { text } from '../../http/fields.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource } from './crud.ts';
import { email, ownedLink } from './fields.ts';

type CalendarUserRow = typeof calendarUsers.$inferSelect;

export const CalendarUserRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  calendar_setting: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  manager: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
});

export const calendarUserResource = crudResource({
  name: 'calendar-user',
  table: calendarUsers,
  record: CalendarUserRecord,
  touch: { updated_date: sql`now()` },
  fields: () => ({
    username: text({ required: true, max: 150, blank: false }),
    first_name: text({ max: 150 }),
    last_name: text({ max: 150 }),
    email: email(),
    calendar_setting: ownedLink(['calendar-setting'], calendarSettings, { nullable: true }),
  }),
  columns: (_ctx, v) => ({
    values: {
      username: v.username ?? undefined,
      first_name: v.first_name ?? undefined,
      last_name: v.last_name ?? undefined,
      email: v.email ?? undefined,
      calendar_setting_id: v.calendar_setting,
    },
  }),
  present(request, r) {
    const row = r as unknown as CalendarUserRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('calendar-user', row.id) as string,
      username: row.username,
      first_name: row.first_name,
      last_name: row.last_name,
      email: row.email,
      calendar_setting: link('calendar-setting', row.calendar_setting_id),
      manager: link('users', row.user_id) as string,
      created_date: isoTime(row.created_date) as string,
    };
  },
});

const profileText = ['address', 'city', 'state', 'zip_code', 'phone_no', 'fax', 'company_name', 'company_website', 'language', 'note', 'accountcode'] as const;
const profileMax: Record<(typeof profileText)[number], number> = {
  address: 200,
  city: 120,
  state: 120,
  zip_code: 120,
  phone_no: 90,
  fax: 90,
  company_name: 90,
  company_website: 90,
  language: 50,
  note: 250,
  accountcode: 50,
};

export const CalendarUserProfileRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  user: Type.Integer(),
  manager: Type.String({ format: 'uri' }),
  calendar_setting: Type.Union([Type.Integer(), Type.Null()]),
  country: Type.String(),
  ...Object.fromEntries(profileText.map((name) => [name, Type.String()])),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

/** Newfies documents only read and update for profiles: they are made with their calendar user. */
export const calendarUserProfileResource = crudResource({
  name: 'calendar-user-profile',
  table: calendarUsers,
  record: CalendarUserProfileRecord,
  writes: { create: false, delete: false },
  touch: { updated_date: sql`now()` },
  fields: () => ({
    calendar_setting: ownedLink(['calendar-setting'], calendarSettings, { nullable: true }),
    country: text({ max: 2 }),
    ...(Object.fromEntries(profileText.map((name) => [name, text({ max: profileMax[name] })])) as Record<(typeof profileText)[number], ReturnType<typeof text>>),
  }),
  columns: (_ctx, v) => ({
    values: {
      calendar_setting_id: v.calendar_setting,
      country: v.country ?? undefined,
      ...Object.fromEntries(profileText.map((name) => [name, v[name] ?? undefined])),
    },
  }),
  present(request, r) {
    const row = r as unknown as CalendarUserRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('calendar-user-profile', row.id) as string,
      user: row.id,
      manager: link('users', row.user_id) as string,
      calendar_setting: row.calendar_setting_id,
      country: row.country,
      ...Object.fromEntries(profileText.map((name) => [name, row[name]])),
      created_date: isoTime(row.created_date) as string,
      updated_date: isoTime(row.updated_date) as string,
    };
  },
});
