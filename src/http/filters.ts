/**
 * List filters given in the query string (`?campaign_id=3&status=1`), read the same way by every
 * resource: an empty value means no filter; a value that is not a whole number is a 400 naming
 * the parameter, as django-filter answers.
 */
import { eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { FastifyRequest } from 'fastify';
import { invalid } from './errors.ts';

/** The whole-number query parameter `name`, or undefined when absent or empty. */
export function queryInteger(request: FastifyRequest, name: string): number | undefined {
  const raw = (request.query as Record<string, unknown>)[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw.trim())) throw invalid({ [name]: ['Enter a number.'] });
  return Number(raw.trim());
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
