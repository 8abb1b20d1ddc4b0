/**
 * Values for request fields: plausible ones derived from an operation's OpenAPI schema (so that
 * some writes succeed and reach deep code), and hostile ones (NUL, limits ± 1, huge numbers,
 * wrong types, deep nesting, impossible dates) that must be answered 400, never 500.
 */
import fc from 'fast-check';

/** A JSON schema node as @fastify/swagger writes it (the parts the fuzzer reads). */
export interface Schema {
  type?: string;
  anyOf?: Schema[];
  enum?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  examples?: unknown[];
  example?: unknown;
  format?: string;
}

/** Link values for the resource named in a link field's example (`/rest-api/gateway/1/`). */
export type LinkSource = (resource: string) => fc.Arbitrary<unknown>;

const deep = (levels: number): unknown => (levels === 0 ? 'bottom' : { a: deep(levels - 1) });

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  // NUL, which PostgreSQL text cannot hold, inside an otherwise plausible value.
  fc.tuple(fc.stringMatching(/^[a-z0-9]{0,6}$/), fc.stringMatching(/^[a-z0-9]{0,6}$/)).map(([a, b]) => `${a}\u0000${b}`),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '',
    ' ',
    '\ud800',
    '😀'.repeat(60),
    "'; drop table users; --",
    '%00',
    '=1+1',
    '\t=cmd',
    '-1',
    '1e309',
    '99999999999999999999',
    'NaN',
    'True',
    'null',
    '{"a":1}',
    '[1]',
    '0001-01-01 00:00:00',
    '9999-12-31 23:59:59',
    '2026-02-30 10:00:00',
    '2026-13-01',
    '24:00:00',
    '/rest-api/phonebook/0/',
    '/rest-api/phonebook/99999999999/',
    'http://evil.example/rest-api/users/999999/',
    '\r\n',
  ),
  fc.constantFrom(101, 251, 2001, 10001, 70000).map((n) => 'x'.repeat(n)),
  fc.string({ maxLength: 12, unit: 'binary' }),
);

const hostileNumber = fc.constantFrom(-1, 0, 0.5, -0.000001, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 1e-7);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [1, 2], [null], { a: '\u0000' }, deep(12), { big: 'x'.repeat(70_000) }),
  },
  // No bare numbers: a small one is an id, and the admin must not link to other users' records.
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v !== 'number') },
);

/** Dates as the contract reads them, and near misses. */
const dateString = fc.oneof(
  fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().replace('T', ' ').slice(0, 19)),
  fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2026-11-21', '2026-11-21T08:00:00+05:30', '0001-01-01 00:00:00', '2026-11-21 25:00:00', 'tomorrow'),
);
const timeString = fc.oneof(
  fc.tuple(fc.nat(23), fc.nat(59), fc.nat(59)).map((t) => t.map((n) => String(n).padStart(2, '0')).join(':')),
  fc.constantFrom('24:00:00', '8:00', '08:00:60', 'noon'),
);
const phoneString = fc.oneof(
  fc.stringMatching(/^\+?1203555\d{4}$/),
  fc.constantFrom('+44 20 7946 0958', '(203) 555-0100', '12', '1'.repeat(21), '+', 'abc', '+33 6 12 34 56 78'),
);
const plainString = fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9 ]{1,20}$/) }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) });
const keyString = fc.oneof(fc.stringMatching(/^[0-9*#]{1,2}$/), fc.constantFrom('', 'any', 'timeout', 'invalid'));

const LINK_EXAMPLE = /^\/rest-api\/([a-z_-]+)\/1\/$/;

/** The resource a link field points at, from its schema's example. */
function linkTarget(schema: Schema): string | undefined {
  const example = schema.examples?.[0] ?? schema.example;
  return typeof example === 'string' ? LINK_EXAMPLE.exec(example)?.[1] : undefined;
}

/** A string for the field `name`: by what its name says (phones, dates, times), else plain. */
function stringFor(name: string, schema: Schema, links: LinkSource): fc.Arbitrary<unknown> {
  const target = linkTarget(schema);
  if (target) return links(target);
  if (/date$/.test(name)) return dateString;
  if (/time$/.test(name)) return timeString;
  if (/^(contact|phone_number|duplicate_contact|callerid_num|did_number|phonenumber|recipient_number)$/.test(name)) return phoneString;
  if (/^key_\d$|^keys$/.test(name)) return keyString;
  if (name === 'email') return fc.constantFrom('a@example.com', 'not-an-email', '');
  if (name === 'api_url') return fc.constantFrom('http://127.0.0.1:9/x', 'ftp://x', 'not a url');
  return plainString;
}

/** A plausible value for the field `name` of schema `schema` (a valid one, most of the time). */
export function fromSchema(name: string, schema: Schema, links: LinkSource, depth = 0): fc.Arbitrary<unknown> {
  const variants: fc.Arbitrary<unknown>[] = [];
  // A link is `anyOf [string (with a link example), integer]`: its integers are ids, drawn from the pools.
  const link = schema.anyOf?.map(linkTarget).find((t) => t !== undefined);
  if (link) variants.push(links(link));
  else if (schema.anyOf) {
    // `anyOf [number, string]` is a number that may come as a string ("10", "True"): send the
    // string form of a valid value rather than any string.
    const narrowed = schema.anyOf.filter((s) => s.type !== 'string' || s.maxLength !== undefined || s.examples);
    const typed = narrowed.length ? narrowed : schema.anyOf;
    for (const alternative of typed) {
      const value = fromSchema(name, alternative, links, depth);
      variants.push(value);
      if (typed.length < schema.anyOf.length && alternative.type !== 'object') variants.push(value.map((v) => (typeof v === 'boolean' ? (v ? 'True' : 'false') : String(v))));
    }
  }
  else if (schema.enum) variants.push(fc.constantFrom(...schema.enum));
  else if (schema.type === 'string') variants.push(stringFor(name, schema, links));
  else if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? 0;
    const max = Math.min(schema.maximum ?? 1000, min + 1000);
    variants.push(schema.type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true }));
  } else if (schema.type === 'boolean') variants.push(fc.boolean());
  else if (schema.type === 'array') variants.push(fc.array(fromSchema(name, schema.items ?? {}, links, depth + 1), { maxLength: 3 }));
  else if (schema.type === 'object' && schema.properties && depth < 3) variants.push(objectFromSchema(schema, links, depth + 1));
  else variants.push(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 10 }), fc.integer()), { maxKeys: 3 }));
  if (schema.nullable) variants.push(fc.constant(null));
  return variants.length === 1 ? variants[0] : fc.oneof(...variants);
}

/** An object of some of the schema's properties (any may be left out: required lists are not trusted). */
export function objectFromSchema(schema: Schema, links: LinkSource, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, fromSchema(k, s, links, depth)]));
  return fc.record(props, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** JSON texts that are not an object body: empty, truncated, scalar, over 1 MB, nested deep. */
export const junkJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'null', '[]', '{', '"x"', '123', '{"a":', '{"name":"a","name":"b"}', '\ufeff{}', '{"__proto__":{"is_admin":true}}'),
  fc.constantFrom(100, 5000).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.constant(`{"name":"${'x'.repeat(1024 * 1024 + 10)}"}`),
  fc.string({ maxLength: 20 }),
);
