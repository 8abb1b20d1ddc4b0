/**
 * /rest-api/alarm-request/ — each attempt of an alarm (Newfies' AlarmRequest): when it was
 * made, by which method, its status (1 PENDING, 2 IN_PROCESS, 3 FAILURE, 5 SUCCESS), the call's
 * Q.850 cause (`callstatus`) and billed seconds, its callrequest. Written by the engine only, so
 * read-only here (Newfies also takes writes, which would record attempts that never happened).
 */
import { Type } from '@sinclair/typebox';
import { eq, type SQL } from 'drizzle-orm';
import { alarmRequests } from '../../db/schema.ts';
import { queryInteger } from '../../http/filters.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource } from './crud.ts';

type AlarmRequestRow = typeof alarmRequests.$inferSelect;

export const AlarmRequestRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  alarm: Type.String({ format: 'uri' }),
  date: Type.String({ format: 'date-time' }),
  method: Type.Integer(),
  status: Type.Integer(),
  callstatus: Type.Integer(),
  duration: Type.Integer(),
  callrequest: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  detail: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
});

export const alarmRequestResource = crudResource({
  name: 'alarm-request',
  table: alarmRequests,
  record: AlarmRequestRecord,
  writes: { create: false, update: false, delete: false },
  filters: (request) => {
    const alarm = queryInteger(request, 'alarm');
    return [alarm === undefined ? undefined : (eq(alarmRequests.alarm_id, alarm) as SQL)];
  },
  fields: () => ({}),
  columns: () => ({ values: {} }),
  present(request, r) {
    const row = r as unknown as AlarmRequestRow;
    const link = linker(request);
    return {
      id: row.id,
      url: link('alarm-request', row.id) as string,
      alarm: link('alarm', row.alarm_id) as string,
      date: isoTime(row.date) as string,
      method: row.method,
      status: row.status,
      callstatus: row.callstatus,
      duration: row.duration,
      callrequest: link('callrequest', row.callrequest_id),
      detail: row.detail,
      created_date: isoTime(row.created_date) as string,
    };
  },
});
