/**
 * /rest-api/rule/ — how an event recurs (Newfies' Rule, after dateutil's rrule): a frequency
 * and parameters written `count:3;interval:2`. The engine reads `interval` and `count` (engine/alarms).
 */
import { Type } from '@sinclair/typebox';
import { calendarRules, RuleFrequencies } from '../../db/schema.ts';
import { type Field, FieldError, text } from '../../http/fields.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { crudResource } from './crud.ts';

type RuleRow = typeof calendarRules.$inferSelect;

const PARAM = /^[a-z]+:-?\d+(,-?\d+)*$/;

function frequency(): Field<string> {
  return {
    schema: Type.Union(RuleFrequencies.map((f) => Type.Literal(f))),
    required: true,
    parse(value) {
      if (typeof value !== 'string' || !(RuleFrequencies as readonly string[]).includes(value)) {
        throw new FieldError(`"${String(value)}" is not a valid choice.`);
      }
      return value;
    },
  };
}

/** `name:int[,int]*` items separated by `;` (Newfies' Rule.get_params); "" for none. */
function params(): Field<string> {
  return {
    schema: Type.String({ maxLength: 500, examples: ['count:3;interval:2'] }),
    required: false,
    parse(value) {
      if (value === null || value === '') return '';
      if (typeof value !== 'string' || value.length > 500) throw new FieldError('Not a valid string.');
      const items = value.split(';').map((p) => p.trim()).filter(Boolean);
      if (!items.every((p) => PARAM.test(p))) throw new FieldError('Write parameters as name:value[,value] separated by ";", e.g. count:3;interval:2.');
      return items.join(';');
    },
  };
}

export const RuleRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  description: Type.String(),
  frequency: Type.String(),
  params: Type.String(),
  created_date: Type.String({ format: 'date-time' }),
});

export const ruleResource = crudResource({
  name: 'rule',
  table: calendarRules,
  record: RuleRecord,
  fields: () => ({
    name: text({ required: true, max: 32, blank: false }),
    description: text({ max: 2000 }),
    frequency: frequency(),
    params: params(),
  }),
  columns: (_ctx, v) => ({
    values: { name: v.name ?? undefined, description: v.description ?? undefined, frequency: v.frequency, params: v.params },
  }),
  present(request, r) {
    const row = r as unknown as RuleRow;
    return {
      id: row.id,
      url: linker(request)('rule', row.id) as string,
      name: row.name,
      description: row.description,
      frequency: row.frequency,
      params: row.params,
      created_date: isoTime(row.created_date) as string,
    };
  },
});
