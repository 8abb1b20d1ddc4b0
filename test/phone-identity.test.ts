/**
 * One identity per phone number (issue 16, item 1; contract §1): numbers are read against
 * DEFAULT_COUNTRY (or the owner's `default_country`) and matched by their E.164 form — DNC, one
 * subscriber per number, time zones — through the API and the engine; numbers that cannot be
 * parsed keep the digit rule; the API returns numbers as they were given.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { rekeyNumbers } from '../src/campaign/phone-rekey.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { queryRows } from '../src/db/database.ts';
import { campaignPhonebooks, contacts, SubscriberStatus } from '../src/db/schema.ts';
import { isDoNotCall } from '../src/campaign/dnc.ts';
import { pass, type Scenario, scenario } from '../src/engine/engine.fixtures.ts';
import { smsPass, smsScenario } from '../src/engine/sms/sms.fixtures.ts';
import { makeUser, unique } from './factories.ts';
import { call, dbLabel, idOf, testApp, testConfig } from './helpers.ts';

// Two apps on one database: the instance read in the US, and one with no DEFAULT_COUNTRY.
const us = await testApp({ config: testConfig({ defaultCountry: 'US' }) });
const plain = await testApp({ database: us.database, config: testConfig() });
const { db } = us.database;
const admin = await makeUser(db, { admin: true });

type App = typeof us;
type Caller = { auth: string };

async function post(t: App, who: Caller, resource: string, body: Record<string, unknown>) {
  const res = await call(t.app, who.auth, 'POST', `/rest-api/${resource}/`, body);
  assert.equal(res.statusCode, 201, `${resource}: ${res.body}`);
  return res.data;
}

async function phonebookWith(t: App, who: Caller, numbers: string[]): Promise<number> {
  const book = idOf((await post(t, who, 'phonebook', { name: unique('book') })).url);
  for (const contact of numbers) await post(t, who, 'contact', { phonebook: book, contact });
  return book;
}

async function globalDnc(t: App, who: Caller, numbers: string[]): Promise<number> {
  const list = idOf((await post(t, who, 'dnc-list', { name: unique('dnc'), is_global: true })).url);
  for (const phone_number of numbers) await post(t, who, 'dnc-contact', { dnc: list, phone_number });
  return list;
}

/** A running campaign; spooling stamps next_attempt_at with the database's now(): the test clock runs ahead of it. */
const running = (first = '+442079460000') =>
  scenario(db, { numbers: [first], clockAt: '2099-01-05T09:00:00Z', campaign: { expirationdate: '2099-12-31T00:00:00Z' } });

/** Passes of the engine, a second apart, until every subscriber has been claimed once. */
async function dialAll(s: Scenario): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await pass(s);
    await s.clock.advance(1000);
  }
}

/** The subscribers of a campaign as the API shows them, by number. */
async function subscribersOf(who: Caller, campaignId: number) {
  const res = await call(us.app, who.auth, 'GET', `/rest-api/subscriber-list/?campaign_id=${campaignId}`);
  assert.equal(res.statusCode, 200, res.body);
  return new Map((res.data as { duplicate_contact: string; status: number; tz_code: string }[]).map((s) => [s.duplicate_contact, s]));
}

describe(`one identity per phone number (${dbLabel})`, () => {
  test('DEFAULT_COUNTRY must be an ISO 3166 alpha-2 code: anything else is one clear line', () => {
    assert.equal(loadConfig({}).defaultCountry, undefined);
    assert.equal(loadConfig({ DEFAULT_COUNTRY: 'us' }).defaultCountry, 'US');
    for (const bad of ['USA', 'XX', '1', 'U S']) {
      assert.throws(
        () => loadConfig({ DEFAULT_COUNTRY: bad }),
        (err: Error) => err instanceof ConfigError && /^DEFAULT_COUNTRY must be an ISO 3166 alpha-2 country code/.test(err.message) && !err.message.includes('\n'),
        bad,
      );
    }
  });

  test('a national number on the phonebook is one subscriber with its E.164 forms, barred by the DNC list in any form', async () => {
    const s = await running();
    const book = await phonebookWith(us, s.user, ['2035550101', '(203) 555-0101', '+1 203 555 0101', '203.555.0102', '+12035550103', '2035550104']);
    await globalDnc(us, s.user, ['+12035550101', '12035550102']);
    await db.insert(campaignPhonebooks).values({ campaign_id: s.campaignId, phonebook_id: book });
    await dialAll(s); // the contacts join the running campaign, and the DNC numbers are barred
    const subs = await subscribersOf(s.user, s.campaignId);
    // Three forms of +12035550101 are one subscriber: the first contact, as it was given.
    assert.deepEqual([...subs.keys()].sort(), ['+442079460000', '2035550101', '2035550102', '2035550104', '+12035550103'].sort());
    assert.equal(subs.get('2035550101')?.status, SubscriberStatus.NotAuthorized, JSON.stringify(subs.get('2035550101')));
    assert.equal(subs.get('2035550102')?.status, SubscriberStatus.NotAuthorized, JSON.stringify(subs.get('2035550102')));
    assert.notEqual(subs.get('+12035550103')?.status, SubscriberStatus.NotAuthorized);
    assert.notEqual(subs.get('2035550104')?.status, SubscriberStatus.NotAuthorized);
    // A US number written nationally is zoned in its area (203: Connecticut), not in Egypt (+20).
    assert.equal(subs.get('2035550101')?.tz_code, 'America/New_York');
    assert.equal(subs.get('2035550104')?.tz_code, 'America/New_York');
  });

  test('the API returns numbers as given, and "is this number blocked?" finds them in any form', async () => {
    const alice = await makeUser(db);
    const list = await globalDnc(us, alice, ['(203) 555-0111']);
    const book = await phonebookWith(us, alice, []);
    const made = await post(us, alice, 'contact', { phonebook: book, contact: '(203) 555-0111' });
    assert.equal(made.contact, '2035550111');
    assert.equal((await call(us.app, alice.auth, 'GET', `/rest-api/contact/${made.id}/`)).data.contact, '2035550111');
    for (const form of ['+12035550111', '1 203 555 0111', '2035550111']) {
      const res = await call(us.app, alice.auth, 'GET', `/rest-api/dnc-contact/?phone_number=${encodeURIComponent(form)}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        res.data.results.map((r: { dnc: string; phone_number: string }) => [idOf(r.dnc), r.phone_number]),
        [[list, '2035550111']],
        form,
      );
    }
  });

  test('a subscriber added through the API in another form of a number already there answers 400; nothing is added', async () => {
    const s = await running('+12035550121');
    const res = await call(us.app, s.user.auth, 'POST', '/rest-api/subscriber-list/', { campaign: s.campaignId, duplicate_contact: '(203) 555-0121' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { duplicate_contact: ['This number is already a subscriber of the campaign.'] });
    assert.equal((await subscribersOf(s.user, s.campaignId)).size, 1);
  });

  test('with DEFAULT_COUNTRY=US a national number is zoned America/New_York; with none it is read as before (+20, Cairo)', async () => {
    const s = await running();
    const inUs = await post(us, s.user, 'subscriber-list', { campaign: s.campaignId, duplicate_contact: '(203) 555-0131' });
    assert.equal(inUs.duplicate_contact, '2035550131');
    assert.equal(inUs.tz_code, 'America/New_York');
    const asBefore = await post(plain, s.user, 'subscriber-list', { campaign: s.campaignId, duplicate_contact: '(203) 555-0132' });
    assert.equal(asBefore.tz_code, 'Africa/Cairo');
  });

  test("an account's default_country overrides DEFAULT_COUNTRY for its numbers; a bad one answers 400 and changes nothing", async () => {
    const bob = await makeUser(db);
    const bad = await call(plain.app, admin.auth, 'PATCH', `/rest-api/accounts/${bob.id}/`, { default_country: 'ZZ' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.data), ['default_country']);
    assert.equal((await call(plain.app, admin.auth, 'GET', `/rest-api/accounts/${bob.id}/`)).data.default_country, null);

    const ok = await call(plain.app, admin.auth, 'PATCH', `/rest-api/accounts/${bob.id}/`, { default_country: 'us' });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.equal((await call(plain.app, admin.auth, 'GET', `/rest-api/accounts/${bob.id}/`)).data.default_country, 'US');

    // The instance reads numbers as international (no DEFAULT_COUNTRY); bob's are read in the US.
    const s = await running();
    await db.execute(sql`update campaigns set user_id = ${bob.id} where id = ${s.campaignId}`);
    const sub = await post(plain, bob, 'subscriber-list', { campaign: s.campaignId, duplicate_contact: '(203) 555-0141' });
    assert.equal(sub.tz_code, 'America/New_York');
    await globalDnc(plain, bob, ['+12035550142']);
    const book = await phonebookWith(plain, bob, ['2035550142']);
    await db.insert(campaignPhonebooks).values({ campaign_id: s.campaignId, phonebook_id: book });
    await dialAll(s);
    const subs = await subscribersOf(bob, s.campaignId);
    assert.equal(subs.get('2035550142')?.status, SubscriberStatus.NotAuthorized, JSON.stringify([...subs.values()]));
    assert.equal(subs.get('2035550142')?.tz_code, 'America/New_York');
  });

  test('numbers that cannot be parsed keep the digit rule', async () => {
    const carol = await makeUser(db);
    const list = await globalDnc(us, carol, ['999-123']);
    for (const form of ['+999123', '999 123']) {
      const res = await call(us.app, carol.auth, 'GET', `/rest-api/dnc-contact/?phone_number=${encodeURIComponent(form)}`);
      assert.deepEqual(res.data.results.map((r: { dnc: string }) => idOf(r.dnc)), [list], form);
    }
    const s = await running();
    await db.execute(sql`update campaigns set user_id = ${carol.id} where id = ${s.campaignId}`);
    const book = await phonebookWith(us, carol, ['+999123', '999123']);
    await db.insert(campaignPhonebooks).values({ campaign_id: s.campaignId, phonebook_id: book });
    await dialAll(s);
    const subs = await subscribersOf(carol, s.campaignId);
    assert.deepEqual([...subs.keys()].sort(), ['+442079460000', '+999123']);
    assert.equal(subs.get('+999123')?.status, SubscriberStatus.NotAuthorized);
  });

  test('a CSV import reads national numbers in the country and skips other forms of numbers already there', async () => {
    const dave = await makeUser(db);
    const book = await phonebookWith(us, dave, ['+12035550151']);
    const form = new FormData();
    form.append('file', new Blob(['contact,full_name\n(203) 555-0151,A\n2035550152,B\n1-203-555-0152,C\n'], { type: 'text/csv' }), 'c.csv');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const res = await us.app.inject({
      method: 'POST',
      url: `/rest-api/phonebook/${book}/import/?skip_duplicates=true`,
      headers: { authorization: dave.auth, 'content-type': request.headers.get('content-type') as string },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(JSON.parse(res.body), { imported: 1, duplicates_skipped: 2, rejected_count: 0, rejected: [] });
    const rows = await db.select({ contact: contacts.contact, key: contacts.phone_key }).from(contacts).where(eq(contacts.phonebook_id, book));
    assert.deepEqual(rows.map((r) => [r.contact, r.key]).sort(), [['+12035550151', '12035550151'], ['2035550152', '12035550152']]);
  });

  test('a STOP from the international form of a number messaged as written nationally bars the number in every form', async () => {
    // An SMS subscriber written nationally by an owner who reads numbers in the US.
    const s = await smsScenario(db, { numbers: ['2035550171'], subscriber: { phone_key: '12035550171' } });
    await db.execute(sql`update users set default_country = 'US' where id = ${s.user.id}`);
    await smsPass(s);
    await s.events.inbound(s.gatewayId, { from: '+12035550171', to: '5550100', text: 'STOP', at: s.clock.now() });
    const [row] = await queryRows<{ n: string; k: string }>(
      db,
      sql`select d.phone_number as n, d.phone_key as k from dnc_contacts d join dnc_lists l on l.id = d.dnc_id where l.user_id = ${s.user.id}`,
    );
    assert.deepEqual({ ...row }, { n: '+12035550171', k: '12035550171' });
    assert.equal(await isDoNotCall(db, s.user.id, null, '(203) 555-0171', 'US'), true);
  });

  test('phone rekey gives numbers stored before keys (their digits) their E.164 key once a country applies', async () => {
    const erin = await makeUser(db);
    const book = await phonebookWith(plain, erin, ['2035550161']); // no country: its key is its digits
    const key = async () => (await queryRows<{ k: string }>(db, sql`select phone_key as k from contacts where phonebook_id = ${book}`))[0].k;
    assert.equal(await key(), '2035550161');
    await call(plain.app, admin.auth, 'PATCH', `/rest-api/accounts/${erin.id}/`, { default_country: 'US' });
    const changed = await rekeyNumbers(db, undefined);
    assert.ok(changed.keys.contacts >= 1, JSON.stringify(changed));
    assert.equal(await key(), '12035550161');
    assert.deepEqual(await rekeyNumbers(db, undefined), {
      keys: { contacts: 0, dnc_contacts: 0, subscribers: 0, sms_subscribers: 0, callrequests: 0 },
      zones: { subscribers: 0, sms_subscribers: 0 },
    });
  });

  test('phone rekey re-zones the subscribers not yet final whose key changed: a US number read as Egypt before leaves Africa/Cairo', async () => {
    const frank = await makeUser(db);
    const s = await running();
    await db.execute(sql`update campaigns set user_id = ${frank.id} where id = ${s.campaignId}`);
    // Before keys (no country): national numbers are read as international, +20 is Egypt.
    const add = (body: Record<string, unknown>) => post(plain, frank, 'subscriber-list', { campaign: s.campaignId, ...body });
    const pending = await add({ duplicate_contact: '(203) 555-0181' });
    const failed = await add({ duplicate_contact: '(203) 555-0182' });
    const given = await add({ duplicate_contact: '(203) 555-0183', tz_code: 'Europe/Paris' });
    assert.deepEqual([pending.tz_code, failed.tz_code, given.tz_code], ['Africa/Cairo', 'Africa/Cairo', 'Europe/Paris']);
    const done = await call(plain.app, frank.auth, 'PATCH', `/rest-api/subscriber-list/${failed.id}/`, { status: SubscriberStatus.Fail });
    assert.equal(done.statusCode, 202, done.body);

    await call(plain.app, admin.auth, 'PATCH', `/rest-api/accounts/${frank.id}/`, { default_country: 'US' });
    const changed = await rekeyNumbers(db, undefined);
    assert.ok(changed.keys.subscribers >= 3 && changed.zones.subscribers >= 1, JSON.stringify(changed));
    const zones = async () => {
      const rows = await queryRows<{ n: string; k: string; tz: string; off: string }>(
        db,
        sql`select duplicate_contact as n, phone_key as k, tz_code as tz, gmt_offset::text as off from subscribers
            where campaign_id = ${s.campaignId} and duplicate_contact like '203%' order by 1`,
      );
      return rows.map((r) => [r.n, r.k, r.tz, r.off]);
    };
    const after = await zones();
    // The pending one is zoned in Connecticut now, with that zone's offset; the failed one keeps
    // the record of its call, and a zone given through the API stays.
    assert.deepEqual(after.map(([n, k, tz]) => [n, k, tz]), [
      ['2035550181', '12035550181', 'America/New_York'],
      ['2035550182', '12035550182', 'Africa/Cairo'],
      ['2035550183', '12035550183', 'Europe/Paris'],
    ]);
    assert.ok(['-5.00', '-4.00'].includes(after[0][3]), JSON.stringify(after[0]));
    // Nothing changes a second time.
    assert.deepEqual((await rekeyNumbers(db, undefined)).zones, { subscribers: 0, sms_subscribers: 0 });
  });
});
