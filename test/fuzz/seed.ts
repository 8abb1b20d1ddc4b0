/**
 * The records the fuzzer aims at, created through the API (as a client would) for each actor:
 * a "keep" and a "spare" record of every resource, their names carrying the actor's marker, so
 * that another user's answer holding that marker or that record's URL is a leak.
 */
import crypto from 'node:crypto';
import { insertQueue } from '../../src/resources/queue/queue.repository.ts';
import type { Database } from '../../src/db/database.ts';
import { makeWav } from '../audio-fixtures.ts';
import { apiCall, send } from './http.ts';
import { multipart } from './multipart.ts';
import { ACTORS, type ActorName, type Target } from './target.ts';

export interface Owned {
  /** Records the fuzzer may change but never deletes (it deletes only spares). */
  keep: number[];
  spare: number[];
}

export interface World {
  /** resource (as in its URL) → actor → ids. */
  ids: Map<string, Record<ActorName, Owned>>;
  /** Records every user may read (gateways, SMS gateways). */
  shared: Map<string, number[]>;
  /** "phonebook/3" → the actor who owns it; grows as the fuzzer creates records. */
  owners: Map<string, ActorName>;
  /** A string found only in the seeded records of each actor. */
  markers: Record<ActorName, string>;
  /** "POST phonebook a" → a body that created a record: generated bodies start from it. */
  templates: Map<string, Record<string, unknown>>;
}

/** `/rest-api/dnc/3/` and `/rest-api/dnc-list/3/` name one record (contract §1). */
export const canonical = (resource: string) => (resource === 'dnc' ? 'dnc-list' : resource);

const idOf = (url: string) => Number(/\/(\d+)\/?$/.exec(url)?.[1]);

export function own(world: World, resource: string, actor: ActorName, id: number, kind: keyof Owned = 'keep'): void {
  let byActor = world.ids.get(resource);
  if (!byActor) {
    byActor = Object.fromEntries(ACTORS.map((a) => [a, { keep: [], spare: [] }])) as unknown as Record<ActorName, Owned>;
    world.ids.set(resource, byActor);
  }
  byActor[actor][kind].push(id);
  world.owners.set(`${canonical(resource)}/${id}`, actor);
}

let phoneCounter = 0;
/** A phone number no other seeded record has (US 203-555 range, valid for libphonenumber). */
const phone = () => `+1203555${String(1000 + phoneCounter++).padStart(4, '0')}`;

async function seedActor(target: Target, world: World, database: Database, actor: ActorName): Promise<void> {
  const m = world.markers[actor];
  const user = `/rest-api/users/${target.actors[actor].id}/`;
  own(world, 'users', actor, target.actors[actor].id);
  const post = async (resource: string, body: Record<string, unknown>, kind: keyof Owned = 'keep') => {
    const answer = await apiCall(target, actor, 'POST', `/rest-api/${resource}/`, body);
    if (kind === 'keep') world.templates.set(`${resource} ${actor}`, body);
    const url = answer.headers.location ?? (answer.json as { url: string }).url;
    own(world, resource, actor, idOf(url), kind);
    return url;
  };
  for (const kind of ['keep', 'spare'] as const) {
    const tag = `${m} ${kind}`;
    const phonebook = await post('phonebook', { name: `${tag} phonebook`, description: tag }, kind);
    const contact = await post('contact', { contact: phone(), phonebook, full_name: `${tag} contact`, additional_vars: { marker: m } }, kind);
    const dnc = await post('dnc-list', { name: `${tag} dnc` }, kind);
    await post('dnc-contact', { phone_number: phone(), dnc }, kind);
    const group = await post('callerid_group', { name: `${tag} callers` }, kind);
    await post('callerid', { callerid_num: phone(), callerid_group: group, areacode: '*' }, kind);
    const upload = multipart([
      { name: 'name', value: `${tag} audio` },
      { name: 'audio_file', filename: 'hello.wav', type: 'audio/wav', value: makeWav(0.2) },
    ]);
    const audio = await send(target, { op: 'seed', actor, auth: 'basic', method: 'POST', url: '/rest-api/audio-files/', ...upload });
    if (audio.status !== 201) throw new Error(`seed: audio upload → ${audio.status} ${audio.text}`);
    own(world, 'audio-files', actor, (audio.json as { id: number }).id, kind);
    const survey = await post('survey-template', { name: `${tag} survey`, description: tag }, kind);
    const first = await post('section-template', { survey, question: `${tag} first`, type: 2, key_1: 'yes', key_2: 'no' }, kind);
    const second = await post('section-template', { survey, question: `${tag} second`, type: 1 }, kind);
    await post('branching-template', { section: first, keys: '1', goto: second }, kind);
    const gateway = `/rest-api/gateway/${world.shared.get('gateway')?.[0]}/`;
    const campaign = await post(
      'campaigns',
      { name: `${tag} campaign`, description: tag, aleg_gateway: gateway, object_id: survey, phonebook: [phonebook], dnc, callerid_group: group, user },
      kind,
    );
    await post('subscriber-list', { campaign, contact, full_name: `${tag} subscriber`, additional_vars: { marker: m } }, kind);
    const smsGateway = `/rest-api/sms-gateway/${world.shared.get('sms-gateway')?.[0]}/`;
    await post('sms-campaigns', { name: `${tag} sms`, text_message: `${tag} text`, sms_gateway: smsGateway, phonebook: [phonebook] }, kind);
    await post('did', { did_number: phone(), campaign }, kind);
    // Queues have no create route (contract: created by the CLI); made as the CLI makes them.
    const queue = await insertQueue(database.db, { name: `${tag} queue`, user_id: target.actors[actor].id });
    own(world, 'queue', actor, queue.id, kind);
  }
}

/** Creates the shared gateways and every actor's records; returns where they are. */
export async function seed(target: Target, database: Database): Promise<World> {
  const hex = crypto.randomBytes(3).toString('hex');
  const world: World = {
    ids: new Map(),
    shared: new Map(),
    owners: new Map(),
    markers: { a: `FZa${hex}Q`, b: `FZb${hex}Q`, admin: `FZadmin${hex}Q` },
    templates: new Map(),
  };
  const gateway = await apiCall(target, 'admin', 'POST', '/rest-api/gateway/', { name: `fuzz gateway ${hex}`, status: 1, driver: 'simulator' });
  const smsGateway = await apiCall(target, 'admin', 'POST', '/rest-api/sms-gateway/', { name: `fuzz sms gateway ${hex}`, status: 1, driver: 'simulator' });
  world.shared.set('gateway', [idOf(gateway.headers.location)]);
  world.shared.set('sms-gateway', [idOf(smsGateway.headers.location)]);
  for (const actor of ACTORS) {
    await seedActor(target, world, database, actor);
    if (actor !== 'admin') {
      await apiCall(target, 'admin', 'POST', '/rest-api/payment/', { amount: '5', user: `/rest-api/users/${target.actors[actor].id}/`, description: world.markers[actor] });
    }
  }
  return world;
}
