import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { eventId } from '../../campaign/event-id.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { DeliveryRow, WebhookRow } from './webhook.repository.ts';
import type { DeliveryRecord, WebhookRecord } from './webhook.schema.ts';

export function presentWebhook(request: FastifyRequest, row: WebhookRow): Static<typeof WebhookRecord> {
  const link = linker(request);
  return {
    id: row.id,
    self: link('webhook', row.id) as string,
    url: row.url,
    events: row.events,
    description: row.description,
    active: row.active,
    ordered: row.ordered,
    batch_size: row.batch_size,
    user: link('users', row.user_id) as string,
    failing_since: isoTime(row.failing_since),
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}

export function presentDelivery(row: DeliveryRow): Static<typeof DeliveryRecord> {
  return {
    id: row.id,
    event_id: eventId({ txid: row.event_txid, id: row.event_id }),
    event_type: row.event_type,
    event_count: row.events.length,
    event_ids: row.events.map(([txid, id]) => eventId({ txid, id })),
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    latency_ms: row.latency_ms,
    response_excerpt: row.response_excerpt,
    error: row.error,
    next_attempt: isoTime(row.next_attempt),
    delivered_at: isoTime(row.delivered_at),
    created: isoTime(row.created) as string,
  };
}
