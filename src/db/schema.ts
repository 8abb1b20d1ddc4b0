/**
 * The one Drizzle schema. Each area keeps its tables in schema/<area>.ts; the SQL that creates
 * them is in migrations/ (numbered, one file per step) and test/schema.test.ts checks the two agree.
 */
export * from './schema/accounts.ts';
export * from './schema/contacts.ts';
export * from './schema/ivr.ts';
export * from './schema/gateways.ts';
export * from './schema/campaigns.ts';
export * from './schema/sms.ts';
export * from './schema/events.ts';
export * from './schema/templates.ts';
export * from './schema/appointments.ts';
