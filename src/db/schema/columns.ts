/** Column helpers shared by every table: timestamps as PostgreSQL text (microseconds kept). */
import { timestamp } from 'drizzle-orm/pg-core';

/** A timestamptz read as PostgreSQL's text, so that microseconds survive (contract §1). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

export const createdDate = () => timestamptz('created_date').notNull().defaultNow();
export const updatedDate = () => timestamptz('updated_date').notNull().defaultNow();
