import { Type } from '@sinclair/typebox';
import { QueueStrategy } from '../../db/schema.ts';
import { boolean, choice, type Field, FieldError, integer, text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/** Where a caller's waiting time is counted from (FreeSWITCH mod_callcenter `time-base-score`). */
export const TimeBaseScore = { Queue: 'queue', System: 'system' } as const;

/** One of a fixed set of strings. */
function textChoice(values: readonly string[]): Field<string> {
  return {
    schema: Type.Union(values.map((v) => Type.Literal(v))),
    required: false,
    parse(value) {
      if (value === null) throw new FieldError('This field may not be null.');
      if (typeof value !== 'string' || !values.includes(value)) throw new FieldError(`"${String(value)}" is not a valid choice.`);
      return value;
    },
  };
}

const seconds = () => integer({ min: 0 });

/** Update fields (PUT and PATCH are both partial; queues are created by the CLI or at /accounts/<id>/queues/). */
export const queueFields = {
  name: text({ max: 100, blank: false }),
  user: userLink(),
  strategy: choice(Object.values(QueueStrategy)),
  moh_sound: text({ max: 250 }),
  record_template: text({ max: 250 }),
  time_base_score: textChoice(Object.values(TimeBaseScore)),
  tier_rules_apply: boolean(),
  tier_rule_wait_second: seconds(),
  tier_rule_wait_multiply_level: boolean(),
  tier_rule_no_agent_no_wait: boolean(),
  discard_abandoned_after: seconds(),
  abandoned_resume_allowed: boolean(),
  max_wait_time: seconds(),
  max_wait_time_with_no_agent: seconds(),
  max_wait_time_with_no_agent_time_reached: seconds(),
};

export const QueueRecord = Type.Object({
  id: Type.Integer(),
  manager: Type.String({ description: "The owner's username" }),
  url: Type.String({ format: 'uri' }),
  user: Type.String({ format: 'uri' }),
  name: Type.String(),
  strategy: Type.Integer({ minimum: 1, maximum: 9 }),
  moh_sound: Type.String(),
  record_template: Type.String(),
  time_base_score: Type.String(),
  tier_rules_apply: Type.Boolean(),
  tier_rule_wait_second: Type.Integer(),
  tier_rule_wait_multiply_level: Type.Boolean(),
  tier_rule_no_agent_no_wait: Type.Boolean(),
  discard_abandoned_after: Type.Integer(),
  abandoned_resume_allowed: Type.Boolean(),
  max_wait_time: Type.Integer(),
  max_wait_time_with_no_agent: Type.Integer(),
  max_wait_time_with_no_agent_time_reached: Type.Integer(),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
