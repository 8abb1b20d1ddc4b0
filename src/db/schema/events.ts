/** The event log, webhook endpoints and their deliveries (issue 14; migration 0017). */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, json, jsonb, pgTable, serial, timestamp, unique, varchar } from 'drizzle-orm/pg-core';
import { createdDate, timestamptz, updatedDate } from './columns.ts';
import { users } from './accounts.ts';

export const events = pgTable(
  'events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The writing transaction: readers go in (txid, id) order below the oldest running one. */
    txid: bigint('txid', { mode: 'number' })
      .notNull()
      .default(sql`(pg_current_xact_id()::text)::bigint`),
    type: varchar('type', { length: 64 }).notNull(),
    /** The owner: who may see it (admins see all). */
    user_id: integer('user_id'),
    /** The voice or SMS campaign it is about, if any (the stream's ?campaign_id= filter). */
    campaign_id: integer('campaign_id'),
    /** The payload, in the API's read shapes with links as paths (made absolute when sent); json: written once, read whole (migration 0019). */
    data: json('data').notNull(),
    created: timestamp('created', { withTimezone: true, mode: 'string' }).notNull().defaultNow(),
  },
  // created: a BRIN index, read only by pruning (migration 0019).
  (t) => [index('events_order_idx').on(t.txid, t.id), index('events_created_brin').using('brin', t.created)],
);

export const webhooks = pgTable('webhooks', {
  id: serial('id').primaryKey(),
  user_id: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  url: varchar('url', { length: 2000 }).notNull(),
  /** Event types or patterns (`call.*`); empty: every event. */
  events: jsonb('events').$type<string[]>().notNull().default([]),
  description: varchar('description', { length: 500 }).notNull().default(''),
  active: boolean('active').notNull().default(true),
  /** true: one delivery at a time, in the log's order; false: up to 16 at a time (migration 0022). */
  ordered: boolean('ordered').notNull().default(true),
  /** Up to this many events in one delivery, as a JSON array; 1: each on its own (migration 0030). */
  batch_size: integer('batch_size').notNull().default(1),
  secret: varchar('secret', { length: 100 }).notNull(),
  cursor_txid: bigint('cursor_txid', { mode: 'number' }).notNull().default(0),
  cursor_id: bigint('cursor_id', { mode: 'number' }).notNull().default(0),
  failing_since: timestamptz('failing_since'),
  /** While a server process sends its deliveries (in order, one at a time); renewed while it does. */
  lease_until: timestamptz('lease_until'),
  /** The process holding the lease: a random id of its dispatcher (migration 0037). */
  lease_owner: varchar('lease_owner', { length: 40 }),
  created_date: createdDate(),
  updated_date: updatedDate(),
});

export const DeliveryStatus = { Pending: 'pending', Delivered: 'delivered', Failed: 'failed' } as const;

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    webhook_id: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** The event, or a delivery's first (no foreign key: pruneEvents deletes a period's deliveries with its events, migration 0021). */
    event_id: bigint('event_id', { mode: 'number' }).notNull(),
    /** All the events of a delivery that carried several (batch_size above 1), in order; null: event_id alone (migration 0032). */
    event_ids: bigint('event_ids', { mode: 'number' }).array(),
    status: varchar('status', { length: 16 }).notNull().default(DeliveryStatus.Pending),
    attempts: integer('attempts').notNull().default(0),
    next_attempt: timestamptz('next_attempt').notNull().defaultNow(),
    response_status: integer('response_status'),
    latency_ms: integer('latency_ms'),
    response_excerpt: varchar('response_excerpt', { length: 500 }),
    error: varchar('error', { length: 500 }),
    delivered_at: timestamptz('delivered_at'),
    created: timestamptz('created').notNull().defaultNow(),
  },
  (t) => [unique('webhook_deliveries_once').on(t.webhook_id, t.event_id)],
);
