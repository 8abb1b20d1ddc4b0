/**
 * The operations of the OpenAPI document, and the fast-check arbitrary of a request to one of
 * them: an actor, a path id, a query string, and a JSON or multipart body — valid, mutated or
 * junk. Query parameters are not in the OpenAPI document (the list filters are read by the
 * routes), so the filters each list reads are named here.
 */
import fc from 'fast-check';
import type { AuthMode, FuzzRequest } from './http.ts';
import { audioParts, importParts, multipart } from './multipart.ts';
import { canonical, type World } from './seed.ts';
import type { ActorName } from './target.ts';
import { hostileString, hostileValue, junkJson, type LinkSource, objectFromSchema, type Schema } from './values.ts';

export interface Operation {
  method: string;
  /** The path template, e.g. /rest-api/phonebook/{id}/ */
  path: string;
  /** The resource of the path's first segment (phonebook, dnc-list …). */
  resource: string;
  body?: { kind: 'json'; schema: Schema } | { kind: 'audio' } | { kind: 'import' };
}

type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>> };

/** Every operation of the document, with what its body is. */
export function operations(doc: OpenApi): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const resource = canonical(path.split('/')[2] ?? '');
      let body: Operation['body'];
      if (path.endsWith('/import/')) body = { kind: 'import' };
      else if (content['multipart/form-data']) body = { kind: 'audio' };
      else if (content['application/json']) body = { kind: 'json', schema: content['application/json'].schema };
      out.push({ method: method.toUpperCase(), path, resource, body });
    }
  }
  return out;
}

/** The list filters each resource reads from the query string. */
const FILTERS: Record<string, string[]> = {
  contact: ['phonebook_id'],
  'dnc-contact': ['dnc_id'],
  callerid: ['callerid_group_id', 'areacode', 'callerid_num'],
  'section-template': ['survey_id'],
  'branching-template': ['section_id'],
  'subscriber-list': ['campaign_id', 'status'],
  callrequest: ['campaign_id', 'status'],
  cdr: ['campaign_id', 'phone_number', 'disposition', 'starting_date__gte', 'starting_date__lte'],
  'sms-message': ['sms_campaign_id', 'status', 'recipient_number'],
};
const FILTER_RESOURCE: Record<string, string> = {
  phonebook_id: 'phonebook',
  dnc_id: 'dnc-list',
  callerid_group_id: 'callerid_group',
  survey_id: 'survey-template',
  section_id: 'section-template',
  campaign_id: 'campaigns',
  sms_campaign_id: 'sms-campaigns',
};

/** encodeURIComponent, except that a lone surrogate is sent as the bytes Node would write for it. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

export class RequestSpace {
  constructor(
    private readonly world: World,
    private readonly userIds: Record<ActorName, number>,
  ) {}

  /**
   * Ids an actor's request may name: its own, the other users' (must be 404 or "does not
   * exist"), shared ones, and none at all. The admin sees everything, so it only names its own
   * records (changing a user's record would move the line between what each user may see).
   */
  private ids(resource: string, actor: ActorName, forDelete: boolean): fc.Arbitrary<number> {
    const byActor = this.world.ids.get(resource);
    const mine = byActor ? (forDelete ? byActor[actor].spare : [...byActor[actor].keep, ...byActor[actor].spare]) : [];
    const others = actor === 'admin' || !byActor ? [] : (['a', 'b', 'admin'] as const).filter((x) => x !== actor).flatMap((x) => byActor[x].keep);
    const shared = forDelete && actor === 'admin' ? [] : (this.world.shared.get(resource) ?? []);
    const missing = fc.constantFrom(999_999, 2_147_483_647);
    const choices = [
      { weight: 6, ids: [...mine, ...shared] },
      { weight: 2, ids: others },
    ].filter((c) => c.ids.length > 0);
    return fc.oneof({ weight: 1, arbitrary: missing }, ...choices.map((c) => ({ weight: c.weight, arbitrary: fc.constantFrom(...c.ids) })));
  }

  /** A path id: one of `ids`, or something that is not an id at all. */
  private pathId(resource: string, actor: ActorName, forDelete: boolean): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 8, arbitrary: this.ids(resource, actor, forDelete).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('0', '-1', 'abc', '1.5', '99999999999999999999', '%00', '1e3', '%20') },
    );
  }

  /** Link values in every form the contract accepts, and wrong ones. */
  private links(actor: ActorName): LinkSource {
    return (target: string) => {
      const resource = canonical(target);
      const id = resource === 'users' ? this.userLinkIds(actor) : this.ids(resource, actor, false);
      return fc.oneof(
        { weight: 4, arbitrary: id.map((n) => `/rest-api/${target}/${n}/`) },
        { weight: 2, arbitrary: id },
        { weight: 1, arbitrary: id.map((n) => `http://127.0.0.1/rest-api/${target}/${n}/`) },
        { weight: 1, arbitrary: id.map(String) },
        { weight: 1, arbitrary: id.map((n) => `/rest-api/phonebook/${n}/`) },
        { weight: 1, arbitrary: fc.constantFrom('', null, 0, '/rest-api/', `/rest-api/${target}/abc/`) },
      );
    };
  }

  private userLinkIds(actor: ActorName): fc.Arbitrary<number> {
    if (actor === 'admin') return fc.constant(this.userIds.admin);
    return fc.constantFrom(this.userIds.a, this.userIds.b, this.userIds.admin);
  }

  private query(op: Operation, actor: ActorName): fc.Arbitrary<string> {
    const names = ['page', 'page_size', 'format', ...(FILTERS[op.resource] ?? [])];
    // Pages past the first are mostly past the end (404): ask for the first ones most of the time.
    const plain = (name: string) => (name === 'page' ? fc.constantFrom('1', '1', '2', '3') : fc.nat(20).map(String));
    const value = (name: string): fc.Arbitrary<string> =>
      fc.oneof(
        { weight: 3, arbitrary: FILTER_RESOURCE[name] ? this.ids(FILTER_RESOURCE[name], actor, false).map(String) : plain(name) },
        { weight: 1, arbitrary: name === 'format' ? fc.constantFrom('csv', 'json', 'api', 'xml') : fc.constantFrom('', '0', '-1', '1.5', '99999999999999999999', 'abc') },
        { weight: 1, arbitrary: hostileString },
      );
    const pair = fc.oneof(
      fc.constantFrom(...names).chain((name) => value(name).map((v) => `${name}=${encode(v)}`)),
      fc.constantFrom('page=%zz', 'a[b]=c', '%00=1', 'page', '&&', 'format=csv&format=json', `${names[names.length - 1]}=1&${names[names.length - 1]}=2`),
    );
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant('') },
      { weight: 3, arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join('&')}`) },
    );
  }

  /**
   * Plausible bodies: the seeded body that created a record of this resource with up to three
   * generated fields over it (so that creates succeed too), a few generated fields alone (most
   * updates), or every field generated.
   */
  private validBody(op: Operation, schema: Schema, actor: ActorName): fc.Arbitrary<Record<string, unknown>> {
    const generated = objectFromSchema(schema, this.links(actor));
    const some = fc.tuple(generated, fc.nat(3)).map(([body, n]) => Object.fromEntries(Object.entries(body).slice(0, n)));
    const template = op.method === 'POST' ? this.world.templates.get(`${op.resource} ${actor}`) : undefined;
    return fc.oneof(
      ...(template ? [{ weight: 3, arbitrary: some.map((body) => ({ ...template, ...body })) }] : []),
      { weight: 2, arbitrary: some },
      { weight: 1, arbitrary: generated },
    );
  }

  private jsonBody(op: Operation, schema: Schema, actor: ActorName): fc.Arbitrary<string> {
    const valid = this.validBody(op, schema, actor);
    const keys = [...Object.keys(schema.properties ?? {}), 'unknown_field', 'id', 'url', 'user', 'user_id'];
    const mutated = fc
      .tuple(valid, fc.array(fc.tuple(fc.constantFrom(...keys), hostileValue), { minLength: 1, maxLength: 3 }))
      .map(([body, changes]) => ({ ...body, ...Object.fromEntries(changes) }));
    return fc.oneof(
      { weight: 4, arbitrary: valid.map((b) => JSON.stringify(b)) },
      { weight: 4, arbitrary: mutated.map((b) => JSON.stringify(b)) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? '') },
      { weight: 1, arbitrary: junkJson },
    );
  }

  private body(op: Operation, actor: ActorName): fc.Arbitrary<Pick<FuzzRequest, 'headers' | 'body'>> {
    const json = (text: fc.Arbitrary<string>) =>
      fc.tuple(text, fc.oneof({ weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '') })).map(
        ([body, type]): Pick<FuzzRequest, 'headers' | 'body'> => ({ headers: type ? { 'content-type': type } : {}, body }),
      );
    if (!op.body) return fc.oneof({ weight: 9, arbitrary: fc.constant<Pick<FuzzRequest, 'headers' | 'body'>>({ headers: {} }) }, { weight: 1, arbitrary: json(junkJson) });
    if (op.body.kind === 'json') return json(this.jsonBody(op, op.body.schema, actor));
    const parts = op.body.kind === 'audio' ? audioParts(this.userLinkIds(actor).map(String)) : importParts;
    return fc.oneof(
      { weight: 8, arbitrary: parts.map((p) => multipart(p)) },
      { weight: 1, arbitrary: parts.map((p) => ({ ...multipart(p), headers: { 'content-type': 'multipart/form-data' } })) },
      { weight: 1, arbitrary: json(junkJson) },
    );
  }

  /** Arbitraries are built once per operation, actor and method: building them costs more than drawing from them. */
  private readonly cache = new Map<string, fc.Arbitrary<{ id: string; query: string; body: Pick<FuzzRequest, 'headers' | 'body'> }>>();

  private parts(op: Operation, who: ActorName, verb: string) {
    const key = `${op.method} ${op.path} ${who} ${verb === 'DELETE'}`;
    let parts = this.cache.get(key);
    if (!parts) {
      parts = fc.record({
        id: this.pathId(op.resource, who, verb === 'DELETE'),
        query: op.method === 'GET' ? this.query(op, who) : fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: this.query(op, who) }),
        body: this.body(op, who),
      });
      this.cache.set(key, parts);
    }
    return parts;
  }

  /** A request to `op`: who sends it, how it authenticates, and what it sends. */
  request(op: Operation): fc.Arbitrary<FuzzRequest> {
    const actor = fc.constantFrom<ActorName>('a', 'a', 'b', 'b', 'admin');
    const auth = fc.oneof(
      { weight: 30, arbitrary: fc.constantFrom<AuthMode>('basic', 'token') },
      { weight: 1, arbitrary: fc.constantFrom<AuthMode>('bad', 'none') },
    );
    const method = fc.oneof({ weight: 19, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') });
    return fc.tuple(actor, auth, method).chain(([who, how, verb]) =>
      this.parts(op, who, verb).map(({ id, query, body }) => ({
          op: `${op.method} ${op.path}`,
          actor: who,
          auth: how,
          method: verb,
          url: op.path.replace('{id}', id) + query,
          headers: body.headers,
          body: verb === 'GET' || verb === 'HEAD' ? undefined : body.body,
        })),
    );
  }
}
