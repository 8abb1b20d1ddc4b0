/**
 * List filters given in the query string (`?campaign_id=3&status=1`), read the same way by every
 * resource, as django-filter reads them: an empty value means no filter; a repeated parameter
 * means its last value (Django's QueryDict.get); a value of the wrong kind is a 400 naming the
 * parameter. Every filter of every list is read here, before any row is read or any byte of a
 * stream is sent, so a bad filter is never a 500 nor a CSV cut after its header.
 */
import { eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyRequest } from 'fastify';
import { invalid } from './errors.ts';

const MAX_ID = 2_147_483_647; // PostgreSQL integer: a larger number matches no row, and overflowed the query

/** The text of the query parameter `name` (its last value if repeated), or undefined when absent or blank. */
export function queryText(request: FastifyRequest, name: string): string | undefined {
  let raw = (request.query as Record<string, unknown>)[name];
  if (Array.isArray(raw)) raw = raw[raw.length - 1];
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return raw.trim();
}

/** The whole-number query parameter `name`, or undefined when absent or empty. */
export function queryInteger(request: FastifyRequest, name: string): number | undefined {
  const text = queryText(request, name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw invalid({ [name]: ['Enter a number.'] });
  if (text.length > 10 || Number(text) > MAX_ID) throw invalid({ [name]: [`Ensure this value is less than or equal to ${MAX_ID}.`] });
  return Number(text);
}

/** The query parameter `name` when it is one of `choices`, else a 400 (django-filter's ChoiceFilter). */
export function queryChoice<T extends string>(request: FastifyRequest, name: string, choices: readonly T[]): T | undefined {
  const text = queryText(request, name);
  if (text === undefined) return undefined;
  if (!choices.includes(text as T)) throw invalid({ [name]: [`Select a valid choice. ${text} is not one of the available choices.`] });
  return text as T;
}

/**
 * A date-time query parameter, read by `read` (the instant, or the message of the 400): the
 * CDR list passes the campaign dates' reader, so a filter takes what a campaign date takes.
 */
export function queryDate(request: FastifyRequest, name: string, read: (text: string) => Date | string): Date | undefined {
  const text = queryText(request, name);
  if (text === undefined) return undefined;
  const date = read(text);
  if (typeof date === 'string') throw invalid({ [name]: [date] });
  return date;
}

/** `column = value` for each whole-number parameter present (names → columns). */
export function integerFilters(request: FastifyRequest, columns: Record<string, PgColumn>): SQL[] {
  const conditions: SQL[] = [];
  for (const [name, column] of Object.entries(columns)) {
    const value = queryInteger(request, name);
    if (value !== undefined) conditions.push(eq(column, value));
  }
  return conditions;
}
