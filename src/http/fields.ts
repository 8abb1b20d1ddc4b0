/**
 * Request bodies, read the way a DRF serializer reads them (contract §1, §8): every field of a
 * resource is declared once with its kind; `parseBody` checks them all and answers one 400
 * `{"field": ["message"]}` listing every problem, with DRF's own messages. Numbers may come as
 * strings, booleans as "True"/"1", links in three forms. Each field also carries a TypeBox
 * schema, so the OpenAPI document shows the same declaration.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { Db } from '../db/database.ts';
import type { AuthUser } from './auth.ts';
import { type FieldErrors, invalid } from './errors.ts';
import { LinkMessages, parseLink } from './links.ts';
import { holdsNul, NUL_MESSAGE } from './null-characters.ts';
import { normalizePhone } from './phone.ts';

/** What a field may need to check a value: the database and the caller (for links). */
export interface FieldContext {
  db: Db;
  user: AuthUser;
}

/** Thrown by a field's parse with the message to show under its name. */
export class FieldError extends Error {}

export interface Field<T> {
  /** For the OpenAPI document only: the body is checked by `parse`. */
  readonly schema: TSchema;
  /** Missing on create → "This field is required." */
  readonly required: boolean;
  /** …unless this other field is given (not null or ''): an SMS campaign's text_message or its sms_template. */
  readonly requiredUnless?: string;
  parse(value: unknown, ctx: FieldContext): T | Promise<T>;
}

export type Fields = Record<string, Field<unknown>>;
export type Parsed<F extends Fields> = { [K in keyof F]?: F[K] extends Field<infer T> ? T : never };

interface Common {
  required?: boolean;
  nullable?: boolean;
  description?: string;
}

const messages = {
  required: 'This field is required.',
  null: 'This field may not be null.',
  blank: 'This field may not be blank.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  string: 'Not a valid string.',
} as const;

function nullable<T>(value: unknown, opts: Common, parse: (v: unknown) => T): T | null {
  if (value === null) {
    if (opts.nullable) return null;
    throw new FieldError(messages.null);
  }
  return parse(value);
}

function withNull(schema: TSchema, opts: Common): TSchema {
  const s = opts.nullable ? Type.Union([schema, Type.Null()]) : schema;
  return opts.description ? { ...s, description: opts.description } : s;
}

/** Free text. Numbers are taken as their text, as DRF's CharField does. */
export function text(opts: Common & { max?: number; blank?: boolean } = {}): Field<string | null> {
  const max = opts.max ?? 10_000;
  return {
    schema: withNull(Type.String({ maxLength: max }), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        if (typeof v !== 'string' && typeof v !== 'number') throw new FieldError(messages.string);
        const s = String(v);
        if (s.trim() === '' && opts.blank === false) throw new FieldError(messages.blank);
        if (s.length > max) throw new FieldError(`Ensure this field has no more than ${max} characters.`);
        return s;
      }),
  };
}

/** A whole number, also given as a string ("10"). */
export function integer(opts: Common & { min?: number; max?: number } = {}): Field<number | null> {
  return {
    schema: withNull(Type.Union([Type.Integer({ minimum: opts.min, maximum: opts.max }), Type.String()]), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
        if (!/^[-+]?\d+(\.0*)?$/.test(s)) throw new FieldError(messages.integer);
        const n = Number(s);
        if (!Number.isSafeInteger(n) || Math.abs(n) > 2_147_483_647) throw new FieldError(messages.integer);
        if (opts.min !== undefined && n < opts.min) {
          throw new FieldError(`Ensure this value is greater than or equal to ${opts.min}.`);
        }
        if (opts.max !== undefined && n > opts.max) {
          throw new FieldError(`Ensure this value is less than or equal to ${opts.max}.`);
        }
        return n;
      }),
  };
}

/** A decimal kept exact as text ("12.50000"), with at most `places` decimals. */
export function decimal(
  opts: Common & { places?: number; maxDigits?: number; positive?: boolean; min?: number } = {},
): Field<string | null> {
  const places = opts.places ?? 5;
  const maxDigits = opts.maxDigits ?? 16;
  return {
    schema: withNull(Type.Union([Type.Number(), Type.String()]), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
        const m = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(s);
        if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new FieldError(messages.number);
        const fraction = (m[3] ?? '').replace(/0+$/, '');
        if (fraction.length > places) {
          throw new FieldError(`Ensure that there are no more than ${places} decimal places.`);
        }
        const whole = m[2].replace(/^0+(?=\d)/, '') || '0';
        if (whole.length + places > maxDigits) {
          throw new FieldError(`Ensure that there are no more than ${maxDigits - places} digits before the decimal point.`);
        }
        const out = `${m[1] === '-' ? '-' : ''}${whole}.${fraction.padEnd(places, '0')}`;
        if (opts.positive && !(Number(out) > 0)) throw new FieldError('Ensure this value is greater than 0.');
        if (opts.min !== undefined && Number(out) < opts.min) {
          throw new FieldError(`Ensure this value is greater than or equal to ${opts.min}.`);
        }
        return out;
      }),
  };
}

const TRUE = new Set([true, 1, '1', 'true', 'True', 'TRUE', 'yes', 'Yes', 'on', 'y', 'Y', 't', 'T']);
const FALSE = new Set([false, 0, '0', 'false', 'False', 'FALSE', 'no', 'No', 'off', 'n', 'N', 'f', 'F']);

/** Parses a boolean as DRF does: true/"True"/"true"/1/"1" and their opposites. */
export function parseBoolean(value: unknown): boolean | undefined {
  if (TRUE.has(value as never)) return true;
  if (FALSE.has(value as never)) return false;
  return undefined;
}

export function boolean(opts: Common = {}): Field<boolean | null> {
  return {
    schema: withNull(Type.Union([Type.Boolean(), Type.String(), Type.Integer()]), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        const b = parseBoolean(v);
        if (b === undefined) throw new FieldError(messages.boolean);
        return b;
      }),
  };
}

/** One of a fixed set of integers (enumerations such as section `type`). */
export function choice(values: readonly number[], opts: Common = {}): Field<number | null> {
  const inner = integer(opts);
  return {
    schema: withNull(Type.Union([...values.map((v) => Type.Literal(v)), Type.String()]), opts),
    required: opts.required ?? false,
    async parse(value, ctx) {
      const n = await inner.parse(value, ctx);
      if (n !== null && !values.includes(n)) throw new FieldError(`"${String(value)}" is not a valid choice.`);
      return n;
    },
  };
}

/** A phone number, normalised (contract §1). */
export function phone(opts: Common = {}): Field<string | null> {
  return {
    schema: withNull(Type.String({ maxLength: 40, examples: ['+12035550101'] }), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        const n = typeof v === 'string' || typeof v === 'number' ? normalizePhone(String(v)) : undefined;
        if (!n) throw new FieldError('Enter a valid phone number.');
        return n;
      }),
  };
}

export const MAX_JSON_DEPTH = 10;
export const MAX_JSON_BYTES = 64 * 1024;

/** Whether `value` nests deeper than `max` levels (iterative: the depth is the client's to choose). */
function deeperThan(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [v, level] = pending.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (level + 1 > max) return true;
    for (const inner of Object.values(v)) pending.push([inner, level + 1]);
  }
  return false;
}

/**
 * Why `obj` cannot be stored as a JSON object (additional_vars, settings; contract §8: at most
 * 10 levels and 64 KB, and no NUL, which jsonb refuses), or undefined. The API and the CSV
 * import both ask here.
 */
export function jsonObjectProblem(obj: unknown): string | undefined {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return 'Value must be a JSON object.';
  if (deeperThan(obj, MAX_JSON_DEPTH)) return `Nesting deeper than ${MAX_JSON_DEPTH} levels is not allowed.`;
  if (holdsNul(obj)) return NUL_MESSAGE;
  if (Buffer.byteLength(JSON.stringify(obj)) > MAX_JSON_BYTES) return `Ensure this value is at most ${MAX_JSON_BYTES} bytes.`;
  return undefined;
}

/** A JSON object, given as an object or as a string holding one (additional_vars, contract §1). */
export function jsonObject(opts: Common = {}): Field<Record<string, unknown> | null> {
  return {
    schema: withNull(Type.Union([Type.Object({}, { additionalProperties: true }), Type.String()]), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        let obj = v;
        if (typeof v === 'string') {
          if (v.trim() === '') return {};
          if (v.length > MAX_JSON_BYTES) throw new FieldError(`Ensure this value is at most ${MAX_JSON_BYTES} bytes.`);
          try {
            obj = JSON.parse(v);
          } catch {
            throw new FieldError('Value must be valid JSON.');
          }
        }
        // A string given here was decoded just now: its "\u0000" escapes were not seen at the door.
        const problem = jsonObjectProblem(obj);
        if (problem) throw new FieldError(problem);
        return obj as Record<string, unknown>;
      }),
  };
}

/** A time of day, "HH:MM:SS" (or "HH:MM"); returned as "HH:MM:SS". */
export function timeOfDay(opts: Common = {}): Field<string | null> {
  return {
    schema: withNull(Type.String({ examples: ['08:00:00'] }), opts),
    required: opts.required ?? false,
    parse: (value) =>
      nullable(value, opts, (v) => {
        const m = typeof v === 'string' ? /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(v.trim()) : null;
        if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) {
          throw new FieldError('Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].');
        }
        return `${m[1].padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}`;
      }),
  };
}

/**
 * A link to one record (contract §1). `find(ctx, id)` says whether the caller may link to
 * that id (it exists and is visible to them); if not, "Object does not exist."
 */
export function link(
  resources: readonly string[],
  find: (ctx: FieldContext, id: number) => Promise<boolean>,
  opts: Common = {},
): Field<number | null> {
  return {
    schema: withNull(
      Type.Union([Type.String({ examples: [`/rest-api/${resources[0]}/1/`] }), Type.Integer()]),
      opts,
    ),
    required: opts.required ?? false,
    async parse(value, ctx) {
      const parsed = parseLink(value, resources);
      if ('error' in parsed) throw new FieldError(parsed.error);
      if ('none' in parsed) {
        if (opts.nullable) return null;
        throw new FieldError(value === null ? messages.null : messages.required);
      }
      if (!(await find(ctx, parsed.id))) throw new FieldError(LinkMessages.doesNotExist);
      return parsed.id;
    },
  };
}

/** A list of links (a campaign's `phonebook`); a single link is taken as a list of one. */
export function linkList(
  resources: readonly string[],
  find: (ctx: FieldContext, id: number) => Promise<boolean>,
  opts: Common = {},
): Field<number[]> {
  const one = link(resources, find, { required: true });
  return {
    schema: Type.Array(one.schema, { description: opts.description }),
    required: opts.required ?? false,
    async parse(value, ctx) {
      if (value === null || value === '') return [];
      const items = Array.isArray(value) ? value : [value];
      const ids: number[] = [];
      for (const item of items) {
        const id = await one.parse(item, ctx);
        if (id !== null && !ids.includes(id)) ids.push(id);
      }
      return ids;
    },
  };
}

/**
 * Checks `body` against `fields`. On create (`partial` false) a missing required field is an
 * error; on update only the fields present are read. Unknown keys are ignored, as DRF does.
 * Throws one 400 with every field's problems; returns the parsed values of the fields present.
 */
export async function parseBody<F extends Fields>(
  fields: F,
  body: unknown,
  ctx: FieldContext,
  { partial = false }: { partial?: boolean } = {},
): Promise<Parsed<F>> {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    const got = Array.isArray(body) ? 'list' : typeof body === 'string' ? 'str' : typeof body;
    throw invalid({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${got}.`] });
  }
  const input = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (!(name in input) || input[name] === undefined) {
      const other = field.requiredUnless === undefined ? undefined : input[field.requiredUnless];
      if (!partial && field.required && (other === undefined || other === null || other === '')) errors[name] = [messages.required];
      continue;
    }
    try {
      out[name] = await field.parse(input[name], ctx);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      errors[name] = [err.message];
    }
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return out as Parsed<F>;
}

/** The OpenAPI schema of a body declared by `fields`. */
export function bodySchema(fields: Fields, { partial = false } = {}): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) properties[name] = field.schema;
  const required = partial ? [] : Object.keys(fields).filter((name) => fields[name].required);
  return Type.Object(properties, { required: required.length ? required : undefined, additionalProperties: true });
}
