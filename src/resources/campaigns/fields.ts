/**
 * What the request fields and records of voice and SMS campaigns share (contract §1, §3, §5):
 * links to rows the caller may use, campaign dates, the calling window, link schemas.
 */
import { Type, Type as T } from '@sinclair/typebox';
import { and, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { smsGateways } from '../../db/schema.ts';
import { boolean, type Field, type FieldContext, FieldError, timeOfDay } from '../../http/fields.ts';
import { DATE_FORMAT_MESSAGE, readCampaignDate } from './campaign.dates.ts';

/** Whether the caller may link to row `id` of an owned table (an admin: any row). */
export function ownedRow(table: PgTable & { id: PgColumn; user_id: PgColumn }) {
  return async (ctx: FieldContext, id: number): Promise<boolean> => {
    const where = ctx.user.is_admin ? eq(table.id, id) : and(eq(table.id, id), eq(table.user_id, ctx.user.id));
    return (await ctx.db.select({ id: table.id }).from(table).where(where).limit(1)).length > 0;
  };
}

/** Contract §3: any existing SMS gateway may be used by any user. */
export async function anySmsGateway(ctx: FieldContext, id: number): Promise<boolean> {
  return (await ctx.db.select({ id: smsGateways.id }).from(smsGateways).where(eq(smsGateways.id, id)).limit(1)).length > 0;
}

/** A campaign date (contract §1), read in the instance time zone when it has no offset. */
export function campaignDate(timeZone: string): Field<string | null> {
  return {
    schema: T.Union([T.String({ examples: ['2026-11-21 08:00:00'] }), T.Null()]),
    required: false,
    parse(value) {
      if (value === null || value === '') return null;
      const date = typeof value === 'string' ? readCampaignDate(value, timeZone) : DATE_FORMAT_MESSAGE;
      if (typeof date === 'string') throw new FieldError(date);
      return date.toISOString();
    },
  };
}

/** The calling window (contract §5), the same fields on voice and SMS campaigns. */
export function windowFields() {
  return {
    daily_start_time: timeOfDay(),
    daily_stop_time: timeOfDay(),
    monday: boolean(),
    tuesday: boolean(),
    wednesday: boolean(),
    thursday: boolean(),
    friday: boolean(),
    saturday: boolean(),
    sunday: boolean(),
  };
}

/** The calling window in a campaign record (voice and SMS). */
export const WindowRecord = {
  daily_start_time: Type.String(),
  daily_stop_time: Type.String(),
  monday: Type.Boolean(),
  tuesday: Type.Boolean(),
  wednesday: Type.Boolean(),
  thursday: Type.Boolean(),
  friday: Type.Boolean(),
  saturday: Type.Boolean(),
  sunday: Type.Boolean(),
};

export const Link = Type.String({ format: 'uri' });
export const NullableLink = Type.Union([Link, Type.Null()]);
