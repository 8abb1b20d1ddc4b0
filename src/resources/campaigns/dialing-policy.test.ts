/**
 * The campaign fields of issue 16 items 2 and 10 through the API: `retry_rules` (checked, 400 on
 * unknown causes or negative numbers), Newfies' `completion_maxretry`/`completion_intervalretry`,
 * power dialing's needs (max_aleg, agent_dial_rate), and a section's `callback_minutes`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { campaigns } from '../../db/schema.ts';
import { makeGateway, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const alice = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const survey = await makeSurvey(db, alice.id);

const create = (body: Record<string, unknown>) =>
  call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', { name: unique('camp'), aleg_gateway: `/rest-api/gateway/${gateway}/`, object_id: survey, ...body });
const patch = (id: number, body: unknown) => call(t.app, alice.auth, 'PATCH', `/rest-api/campaigns/${id}/`, body);
const read = async (id: number) => (await call(t.app, alice.auth, 'GET', `/rest-api/campaigns/${id}/`)).data;
const row = async (id: number) => (await db.select().from(campaigns).where(eq(campaigns.id, id)))[0];

describe(`campaign dialing policy fields (${dbLabel})`, () => {
  test('retry_rules are stored and shown as given, taken as a JSON string too, and null clears them', async () => {
    const rules = { busy: { attempts: 3, interval: 300 }, no_answer: { attempts: 1, interval: 3600 } };
    const res = await create({ retry_rules: rules });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.data.retry_rules, rules);
    const id = res.data.id;
    assert.equal((await patch(id, { retry_rules: JSON.stringify({ machine: { attempts: 2, interval: 60 } }) })).statusCode, 202);
    assert.deepEqual((await read(id)).retry_rules, { machine: { attempts: 2, interval: 60 } });
    assert.equal((await patch(id, { retry_rules: null })).statusCode, 202);
    assert.equal((await read(id)).retry_rules, null);
  });

  test('a campaign without retry_rules shows null and the Newfies completion defaults', async () => {
    const res = await create({});
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.data.retry_rules, res.data.completion_maxretry, res.data.completion_intervalretry], [null, 0, 900]);
  });

  test('retry_rules with an unknown cause, a negative number or a missing interval answer 400 and store nothing', async () => {
    const id = (await create({})).data.id;
    const before = await row(id);
    for (const rules of [{ voicemail: { attempts: 1, interval: 1 } }, { busy: { attempts: -1, interval: 60 } }, { busy: { attempts: 1 } }, { busy: 3 }, '[1]', 'not json']) {
      const res = await patch(id, { retry_rules: rules });
      assert.equal(res.statusCode, 400, `${JSON.stringify(rules)}: ${res.body}`);
      assert.ok(Array.isArray(res.data.retry_rules), res.body);
    }
    const refused = await create({ retry_rules: { busy: { attempts: 1, interval: -5 } } });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(await row(id), before);
  });

  test('completion_maxretry and completion_intervalretry are stored; negative values answer 400', async () => {
    const res = await create({ completion_enabled: true, completion_maxretry: '2', completion_intervalretry: 1800 });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.data.completion_enabled, res.data.completion_maxretry, res.data.completion_intervalretry], [true, 2, 1800]);
    const bad = await patch(res.data.id, { completion_maxretry: -1, completion_intervalretry: -1 });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.data).sort(), ['completion_intervalretry', 'completion_maxretry']);
  });

  test('power dialing (dial_method 3) without max_aleg or with agent_dial_rate 0 answers 400; with both it is stored', async () => {
    const noLines = await create({ dial_method: 3, max_aleg: 0, agent_dial_rate: '0' });
    assert.equal(noLines.statusCode, 400, noLines.body);
    assert.deepEqual(Object.keys(noLines.data).sort(), ['agent_dial_rate', 'max_aleg'], noLines.body);
    const ok = await create({ dial_method: 3, max_aleg: 10, agent_dial_rate: '1.5' });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual([ok.data.dial_method, ok.data.max_aleg, ok.data.agent_dial_rate], [3, 10, '1.50']);
    // A PATCH is checked on the merged record: max_aleg 0 on a power campaign is refused.
    const res = await patch(ok.data.id, { max_aleg: 0 });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal((await row(ok.data.id)).max_aleg, 10);
    // Created with the defaults (max_aleg 100, rate 1.00), power is fine.
    assert.equal((await create({ dial_method: '3' })).statusCode, 201);
  });

  test('agent_dial_rate other than its default 1.00 with dial_method 1 or 2 answers 400 under agent_dial_rate and changes nothing', async () => {
    for (const body of [{ agent_dial_rate: '2' }, { dial_method: 1, agent_dial_rate: '1.5' }, { dial_method: '2', agent_dial_rate: '0' }]) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.deepEqual(Object.keys(res.data), ['agent_dial_rate'], res.body);
      assert.ok(Array.isArray(res.data.agent_dial_rate), res.body);
    }
    // The default, as a Newfies client sends it, is fine with every method.
    for (const [dial_method, agent_dial_rate] of [[1, '1'], ['2', '1.0'], [2, '1.00']]) {
      const res = await create({ dial_method, agent_dial_rate });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.data.agent_dial_rate, '1.00');
    }
    // A PATCH is checked on the merged record: a rate on a progressive campaign, or leaving power with one.
    const progressive = (await create({ dial_method: 2 })).data.id;
    const before = await row(progressive);
    const rate = await patch(progressive, { agent_dial_rate: '2.5' });
    assert.equal(rate.statusCode, 400, rate.body);
    assert.deepEqual(Object.keys(rate.data), ['agent_dial_rate']);
    assert.deepEqual(await row(progressive), before);
    const power = (await create({ dial_method: 3, max_aleg: 4, agent_dial_rate: '2' })).data.id;
    const powerBefore = await row(power);
    const leave = await patch(power, { dial_method: 1 });
    assert.equal(leave.statusCode, 400, leave.body);
    assert.deepEqual(Object.keys(leave.data), ['agent_dial_rate']);
    assert.deepEqual(await row(power), powerBefore);
    // Leaving power with the rate back at its default is fine.
    assert.equal((await patch(power, { dial_method: 2, agent_dial_rate: '1' })).statusCode, 202);
    assert.deepEqual([(await read(power)).dial_method, (await read(power)).agent_dial_rate], [2, '1.00']);
  });

  test('a power campaign stored without lines before the rule can still be renamed; changing its lines is checked', async () => {
    const [legacy] = await db
      .insert(campaigns)
      .values({ campaign_code: unique('L').toUpperCase(), name: unique('legacy'), user_id: alice.id, dial_method: 3, max_aleg: 0 })
      .returning();
    assert.equal((await patch(legacy.id, { name: unique('renamed') })).statusCode, 202);
    assert.equal((await patch(legacy.id, { agent_dial_rate: '2' })).statusCode, 400);
  });

  test('a section takes callback_minutes (1 … 43200; null clears it, and the record then leaves it out); 0 answers 400', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/section-template/', {
      survey: `/rest-api/survey-template/${survey}/`,
      question: 'Call me later',
      callback_minutes: 30,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.callback_minutes, 30);
    const bad = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${res.data.id}/`, { callback_minutes: 0 });
    assert.equal(bad.statusCode, 400, bad.body);
    const cleared = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${res.data.id}/`, { callback_minutes: null });
    assert.ok(cleared.statusCode < 300, cleared.body);
    const after = (await call(t.app, alice.auth, 'GET', `/rest-api/section-template/${res.data.id}/`)).data;
    assert.equal('callback_minutes' in after, false, JSON.stringify(after));
  });
});
