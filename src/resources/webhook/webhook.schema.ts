/**
 * Webhook request fields and record (issue 14 §2): `url` (http or https, checked against SSRF
 * when saved and again at each connection), `events` (types or patterns such as `call.*`;
 * empty: every event), `description`, `active`. `url` is the endpoint, as in every webhook API,
 * so the record's own link is `self`. The `secret` is made by the server, shown once
 * (in the create's answer and by rotate-secret), never in reads.
 */
import { Type } from '@sinclair/typebox';
import { badEventPattern, MAX_WEBHOOK_BATCH } from '../../campaign/events.ts';
import { boolean, type Field, FieldError, integer, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** A list of event types or patterns: a JSON array of strings, or one comma-separated string. */
function eventList(): Field<string[] | null> {
  return {
    schema: Type.Array(Type.String(), { description: 'event types or patterns (call.*); empty: every event' }),
    required: false,
    parse(value) {
      if (value === null) throw new FieldError('This field may not be null.');
      const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;
      if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) throw new FieldError('Expected a list of event types.');
      const bad = badEventPattern(list as string[]);
      if (bad !== undefined) throw new FieldError(`"${bad}" is not an event type or pattern (such as call.*).`);
      return [...new Set(list as string[])];
    },
  };
}

export const webhookFields = {
  url: text({ required: true, max: 2000 }),
  events: eventList(),
  description: text({ max: 500, blank: true }),
  active: boolean(),
  ordered: boolean({ description: 'true (default): one delivery at a time, in order; false: up to 16 at a time, in any order' }),
  batch_size: integer({
    min: 1,
    max: MAX_WEBHOOK_BATCH,
    description: `1 (default): each delivery is one event, a JSON object; 2–${MAX_WEBHOOK_BATCH}: each delivery is a JSON array of up to this many events, in the log's order`,
  }),
  user: userLink(),
};

export const WebhookRecord = Type.Object({
  id: Type.Integer(),
  /** The record's own link (`url` is the endpoint's, as written). */
  self: Type.String({ format: 'uri' }),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  active: Type.Boolean(),
  ordered: Type.Boolean(),
  batch_size: Type.Integer(),
  user: Type.String({ format: 'uri' }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

/** The create's answer: the record and, this once, its secret. */
export const CreatedWebhookRecord = Type.Intersect([WebhookRecord, Type.Object({ secret: Type.String() })]);

/** One request to the webhook: its first event (id and type), and all it carried (batch_size above 1). */
export const DeliveryRecord = Type.Object({
  id: Type.Integer(),
  event_id: Type.String(),
  event_type: Type.String(),
  event_count: Type.Integer(),
  event_ids: Type.Array(Type.String()),
  status: Type.String(),
  attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  latency_ms: Type.Union([Type.Integer(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  next_attempt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created: Type.String({ format: 'date-time' }),
});
