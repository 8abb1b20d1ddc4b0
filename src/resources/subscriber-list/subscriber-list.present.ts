import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { decimalString, isoTime } from '../../http/present.ts';
import type { SubscriberRow } from './subscriber-list.repository.ts';
import type { SubscriberRecord } from './subscriber-list.schema.ts';
import { gmtOffsetOf } from '../../campaign/timezone.ts';
import type { WaitReason } from '../../campaign/contact-policy.ts';
import { SubscriberStatus } from '../../db/schema.ts';

/** Row → JSON; `gmt_offset` and `tz_code` are always strings (contract §8); `reason` and `wait_reason` say why it ended or waits. */
export function presentSubscriber(request: FastifyRequest, row: SubscriberRow, timeZone: string): Static<typeof SubscriberRecord> {
  const link = linker(request);
  const tz = row.tz_code || timeZone;
  return {
    id: row.id,
    url: link('subscriber-list', row.id) as string,
    contact: link('contact', row.contact_id),
    campaign: link('campaigns', row.campaign_id) as string,
    last_attempt: isoTime(row.last_attempt),
    count_attempt: row.count_attempt,
    status: row.status,
    duplicate_contact: row.duplicate_contact,
    full_name: row.full_name,
    gmt_offset: row.gmt_offset === null ? gmtOffsetOf(tz) : decimalString(row.gmt_offset, 2),
    tz_code: tz,
    additional_vars: (row.additional_vars ?? {}) as Record<string, unknown>,
    scheduled_at: isoTime(row.scheduled_at),
    reason: row.reason,
    // The engine's gate sets it on the PENDING ones it holds and clears it when it lets one go; one
    // left from before the subscriber ended (or was paused) says nothing any more.
    wait_reason: row.status === SubscriberStatus.Pending ? ((row.wait_reason as WaitReason | null) ?? null) : null,
  };
}
