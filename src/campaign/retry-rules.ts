/**
 * Retries by cause (issue 16, item 2): a voice campaign's `retry_rules` give each disposition
 * of a call that did not reach a person its own attempts and interval —
 * `{"busy": {"attempts": 3, "interval": 300}, "no_answer": …, "failed": …, "machine": …}`. A cause
 * without a rule keeps the campaign's maxretry/intervalretry (contract §5), and a call answered
 * by a machine is final (SENT) as before unless `machine` has a rule. Unallocated or invalid
 * numbers (Q.850 1, 3, 28) are never retried, rules or not. The API validates the field; the
 * engine (store/subscribers.ts settleSubscribers) reads the rule of each call's `retryCause`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Field, FieldError } from '../http/fields.ts';
import type { AmdResult } from '../drivers/voice/driver.ts';

/** The causes a rule may name. */
export const retryCauses = ['busy', 'no_answer', 'failed', 'machine'] as const;
export type RetryCause = (typeof retryCauses)[number];

/** Q.850 1 (unallocated number), 3 (no route to destination), 28 (invalid number format). */
export const neverRetriedCauses: readonly number[] = [1, 3, 28];

const Rule = Type.Object(
  {
    /** Retries after a call ending with this cause (like maxretry: 1 + attempts calls in all). */
    attempts: Type.Integer({ minimum: 0, maximum: 100 }),
    /** Seconds from the end of the call to the retry (like intervalretry). */
    interval: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

export const RetryRules = Type.Object(
  { busy: Type.Optional(Rule), no_answer: Type.Optional(Rule), failed: Type.Optional(Rule), machine: Type.Optional(Rule) },
  { additionalProperties: false, description: 'A retry rule per cause; absent causes keep maxretry/intervalretry.' },
);
export type RetryRulesValue = Static<typeof RetryRules>;

/** The campaign field: an object (or a JSON string of one) checked against RetryRules; null clears. */
export function retryRulesField(): Field<RetryRulesValue | null> {
  return {
    schema: Type.Union([RetryRules, Type.Null()]),
    required: false,
    parse(value) {
      if (value === null || value === '') return null;
      let v = value;
      if (typeof v === 'string') {
        try {
          v = JSON.parse(v);
        } catch {
          throw new FieldError('Value must be valid JSON.');
        }
      }
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FieldError('Value must be a JSON object.');
      const unknown = Object.keys(v).filter((k) => !(retryCauses as readonly string[]).includes(k));
      if (unknown.length) throw new FieldError(`Unknown cause "${unknown[0]}": use ${retryCauses.join(', ')}.`);
      const error = Value.Errors(RetryRules, v).First();
      if (error) throw new FieldError(`${error.path.replace(/^\//, '').replace('/', '.')}: ${error.message}.`);
      return v as RetryRulesValue;
    },
  };
}

/**
 * Which rule applies to a call's end: 'never' (an invalid number), a cause, or null (answered by
 * a person: no retry rule, the completion rule may still apply).
 */
export function retryCauseOf(cause: number, answered: boolean, amd: AmdResult): RetryCause | 'never' | null {
  if (answered) return amd === 'machine' ? 'machine' : null;
  if (neverRetriedCauses.includes(cause)) return 'never';
  if (cause === 17) return 'busy';
  if (cause === 18 || cause === 19) return 'no_answer';
  return 'failed';
}
