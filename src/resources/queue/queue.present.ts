import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { QueueRow } from './queue.repository.ts';
import type { QueueRecord } from './queue.schema.ts';

export function presentQueue(request: FastifyRequest, row: QueueRow): Static<typeof QueueRecord> {
  const link = linker(request);
  return {
    id: row.id,
    manager: row.manager,
    url: link('queue', row.id) as string,
    user: link('users', row.user_id) as string,
    name: row.name,
    strategy: row.strategy,
    moh_sound: row.moh_sound,
    record_template: row.record_template,
    time_base_score: row.time_base_score,
    tier_rules_apply: row.tier_rules_apply,
    tier_rule_wait_second: row.tier_rule_wait_second,
    tier_rule_wait_multiply_level: row.tier_rule_wait_multiply_level,
    tier_rule_no_agent_no_wait: row.tier_rule_no_agent_no_wait,
    discard_abandoned_after: row.discard_abandoned_after,
    abandoned_resume_allowed: row.abandoned_resume_allowed,
    max_wait_time: row.max_wait_time,
    max_wait_time_with_no_agent: row.max_wait_time_with_no_agent,
    max_wait_time_with_no_agent_time_reached: row.max_wait_time_with_no_agent_time_reached,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}
