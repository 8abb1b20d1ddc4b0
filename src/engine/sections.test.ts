/**
 * The IVR section types one by one (contract §4, issue 5 §8), each played by the engine over the
 * ScriptedDriver: rating, record, conference, add to DNC, send SMS, API call (against a real
 * HTTP server on 127.0.0.1), queue, speech recognition and the asynchronous API call.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { campaigns, dncContacts, dncLists, subscribers } from '../db/schema.ts';
import { call, dbLabel, testApp } from '../../test/helpers.ts';
import { type Scenario, flowOf, pass, scenario, section } from './engine.fixtures.ts';
import { ScriptedSmsDriver } from './sms/sms.fixtures.ts';

const { app, database } = await testApp();
const db = database.db;

interface Result {
  question: string;
  response: string;
  record_file: string;
}

const resultsOf = (campaignId: number) =>
  queryRows<Result>(
    db,
    sql`select r.question, r.response, r.record_file from call_results r join callrequests c on c.id = r.callrequest_id
        where c.campaign_id = ${campaignId} order by r.id`,
  );

const statusesOf = async (campaignId: number) =>
  (await db.select().from(subscribers).where(eq(subscribers.campaign_id, campaignId)).orderBy(subscribers.id)).map((s) => s.status);

const logOf = (s: Scenario, i = 0) => s.driver.calls[i].log;

/** A tiny HTTP server on 127.0.0.1 for the API sections; closed by the test that made it. */
async function apiServer(handler: (url: URL, res: http.ServerResponse) => void) {
  const seen: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push(url);
    handler(url, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, seen, close };
}

test(`rating (3): an answer outside 1..rating_laps is retried with the invalid audio, a valid one picks its branch (${dbLabel})`, async () => {
  const thanks = section({ order: 3, question: 'Thanks for the top mark' });
  const other = section({ order: 2, question: 'Thanks' });
  const rate = section({
    order: 1,
    type: 3,
    question: 'Rate us from 1 to 5',
    rating_laps: 5,
    retries: 1,
    invalid_audiofile: 'audio/invalid.wav',
    branches: [
      { id: 1, keys: '5', goto: thanks.id },
      { id: 2, keys: 'any', goto: other.id },
    ],
  });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([rate, other, thanks]) }, script: () => ({ keys: ['7', '5'] }) });
  assert.equal(await pass(s), 1);
  assert.deepEqual(logOf(s), [
    'play:Rate us from 1 to 5',
    'collect',
    'play:audio/invalid.wav',
    'play:Rate us from 1 to 5',
    'collect',
    'play:Thanks for the top mark',
    'hangup:16',
  ]);
  assert.deepEqual(await resultsOf(s.campaignId), [{ question: 'Rate us from 1 to 5', response: '5', record_file: '' }]);
});

test(`rating (3): no valid answer after the retries is recorded empty and follows the invalid branch (${dbLabel})`, async () => {
  const invalid = section({ order: 3, question: 'Never mind' });
  const rate = section({ order: 1, type: 3, question: 'Rate', rating_laps: 3, retries: 1, branches: [{ id: 1, keys: 'invalid', goto: invalid.id }] });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([rate, section({ order: 2, question: 'Next' }), invalid]) }, script: () => ({ keys: ['0', '4'] }) });
  await pass(s);
  assert.deepEqual(logOf(s).filter((l) => l.startsWith('play:')), ['play:Rate', 'play:Rate', 'play:Never mind']);
  assert.deepEqual(await resultsOf(s.campaignId), [{ question: 'Rate', response: '', record_file: '' }]);
});

test(`record message (5): the recording's file is the answer and the result's record_file, readable through the API (${dbLabel})`, async () => {
  const rec = section({ type: 5, question: 'Leave a message after the tone', completed: true });
  const s = await scenario(db, { campaign: { survey_snapshot: flowOf([rec]) }, script: () => ({ recordSeconds: 8, billsec: 20 }) });
  await pass(s);
  const callId = s.driver.calls[0].request.callId;
  assert.deepEqual(logOf(s), ['play:Leave a message after the tone', 'record:60', 'hangup:16']);
  const file = `recordings/${callId}.wav`;
  assert.deepEqual(await resultsOf(s.campaignId), [{ question: 'Leave a message after the tone', response: file, record_file: file }]);
  const [cr] = await queryRows<{ id: number }>(db, sql`select id from callrequests where campaign_id = ${s.campaignId}`);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/callrequest/${cr.id}/results/`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.data.results[0].record_file, file, res.body);
  assert.deepEqual(await statusesOf(s.campaignId), [8], 'a completed section: COMPLETED');
});

test(`conference (8) puts the call into its room; queue (12) hands it to its queue (${dbLabel})`, async () => {
  const room = section({ type: 8, question: 'Joining the room', conference: 'room-42' });
  const a = await scenario(db, { campaign: { survey_snapshot: flowOf([room]) } });
  await pass(a);
  assert.deepEqual(logOf(a), ['play:Joining the room', 'conference:room-42', 'hangup:16']);
  assert.deepEqual(await resultsOf(a.campaignId), [{ question: 'Joining the room', response: 'room-42', record_file: '' }]);

  const queue = section({ type: 12, question: 'Please hold', queue: 'support' });
  const b = await scenario(db, { campaign: { survey_snapshot: flowOf([queue]) } });
  await pass(b);
  assert.deepEqual(logOf(b), ['play:Please hold', 'queue:support', 'hangup:16']);
  assert.deepEqual(await resultsOf(b.campaignId), [{ question: 'Please hold', response: 'support', record_file: '' }]);
  assert.deepEqual(await statusesOf(b.campaignId), [5]);
});

test(`add to DNC (9): the number joins the campaign's DNC list and is not called again by a campaign using it (${dbLabel})`, async () => {
  const s2 = await scenario(db, {
    numbers: ['+15550123'],
    campaign: { survey_snapshot: flowOf([section({ type: 9, question: 'You will not be called again' })]) },
  });
  const [list] = await db.insert(dncLists).values({ name: 'opt-outs', user_id: s2.userId }).returning();
  await db.update(campaigns).set({ dnc_id: list.id }).where(eq(campaigns.id, s2.campaignId));
  await pass(s2);
  assert.deepEqual(await resultsOf(s2.campaignId), [{ question: 'You will not be called again', response: `added to DNC list ${list.id}`, record_file: '' }]);
  const onList = await db.select().from(dncContacts).where(eq(dncContacts.dnc_id, list.id));
  assert.deepEqual(onList.map((d) => d.phone_number), ['+15550123']);
  // Another campaign with that list: the number is NOT_AUTHORIZED without a call.
  const s3 = await scenario(db, { numbers: ['+1 (555) 0123'], campaign: { dnc_id: list.id } });
  assert.equal(await pass(s3), 0);
  assert.equal(s3.driver.calls.length, 0);
  assert.deepEqual(await statusesOf(s3.campaignId), [7]);
});

test(`add to DNC (9): without a campaign list the number joins the owner's global list; with none it says so (${dbLabel})`, async () => {
  const dnc = flowOf([section({ type: 9, question: 'Removing you' })]);
  const s = await scenario(db, { numbers: ['+15550456'], campaign: { survey_snapshot: dnc } });
  const [global] = await db.insert(dncLists).values({ name: 'global', user_id: s.userId, is_global: true }).returning();
  await pass(s);
  assert.deepEqual((await db.select().from(dncContacts).where(eq(dncContacts.dnc_id, global.id))).map((d) => d.phone_number), ['+15550456']);
  const bare = await scenario(db, { numbers: ['+15550457'], campaign: { survey_snapshot: dnc } });
  await pass(bare);
  assert.deepEqual(await resultsOf(bare.campaignId), [{ question: 'Removing you', response: 'not added: no DNC list', record_file: '' }]);
  assert.deepEqual(await statusesOf(bare.campaignId), [5]);
});

test(`send SMS (10) sends the section's text, with the call's variables, through the campaign's SMS gateway and bills it (${dbLabel})`, async () => {
  const sms = section({ type: 10, question: 'Texting you the details', sms_text: 'Hi {full_name}, your code is {code}' });
  const [gw] = await queryRows<{ id: number }>(db, sql`insert into sms_gateways (name, callback_secret) values (${`sms-${Date.now()}`}, 'secret') returning id`);
  const texts = new ScriptedSmsDriver();
  const s = await scenario(db, {
    smsDriver: texts,
    subscriber: { full_name: 'Ann', additional_vars: { code: '1234' } },
    campaign: { sms_gateway_id: gw.id, survey_snapshot: flowOf([sms, section({ order: 2, question: 'Bye' })]) },
  });
  await db.execute(sql`update users set sms_rate = 0.05, balance = 10 where id = ${s.userId}`);
  await pass(s);
  assert.deepEqual(logOf(s), ['play:Texting you the details', 'play:Bye', 'hangup:16']);
  assert.deepEqual(texts.sent.map((m) => [m.to, m.from, m.text]), [['+15550001', '5550100', 'Hi Ann, your code is 1234']]);
  const [cr] = await queryRows<{ id: number; status: number }>(db, sql`select id, status from callrequests where campaign_id = ${s.campaignId}`);
  assert.equal(cr.status, 4);
  const res = await call(app, s.user.auth, 'GET', `/rest-api/callrequest/${cr.id}/results/`);
  assert.equal(res.statusCode, 200, res.body);
  const messageId = texts.sent[0].messageId;
  assert.deepEqual(res.data.results.map((r: Result) => [r.question, r.response]), [['Texting you the details', `sms sent: message ${messageId}`]]);
  const message = await call(app, s.user.auth, 'GET', `/rest-api/sms-message/${messageId}/`);
  assert.equal(message.statusCode, 200, message.body);
  assert.equal(message.data.status, 'sent');
  assert.equal(message.data.cost, '0.05000');
  assert.equal(message.data.sms_campaign, null);
  assert.match(message.data.callrequest, new RegExp(`/rest-api/callrequest/${cr.id}/$`));
  const [user] = await queryRows<{ balance: string }>(db, sql`select balance::text from users where id = ${s.userId}`);
  assert.equal(user.balance, '9.95000');
});

test(`send SMS (10): a gateway refusal is the section's answer and costs nothing (${dbLabel})`, async () => {
  const sms = section({ type: 10, question: 'Texting', sms_text: 'Hello' });
  const [gw] = await queryRows<{ id: number }>(db, sql`insert into sms_gateways (name, callback_secret) values (${`sms-${Date.now()}-b`}, 'secret') returning id`);
  const texts = new ScriptedSmsDriver(() => ({ ok: false, error: 'invalid destination', retry: false }));
  const s = await scenario(db, { smsDriver: texts, campaign: { sms_gateway_id: gw.id, survey_snapshot: flowOf([sms]) } });
  await db.execute(sql`update users set sms_rate = 0.05, balance = 10 where id = ${s.userId}`);
  await pass(s);
  assert.deepEqual(await resultsOf(s.campaignId), [{ question: 'Texting', response: 'sms not sent: invalid destination', record_file: '' }]);
  const [m] = await queryRows<{ status: string; cost: string }>(db, sql`select status, cost::text from sms_messages where id = ${texts.sent[0].messageId}`);
  assert.deepEqual(m, { status: 'failed', cost: '0.00000' });
  const [user] = await queryRows<{ balance: string }>(db, sql`select balance::text from users where id = ${s.userId}`);
  assert.equal(user.balance, '10.00000');
});

test(`API call (11): a GET with the call's variables whose answer picks the branch (${dbLabel})`, async () => {
  const api = await apiServer((url, res) => res.end(url.searchParams.get('tier') === 'gold' ? '2\n' : '1'));
  try {
    const gold = section({ order: 3, type: 7, question: 'Gold line' });
    const standard = section({ order: 2, type: 7, question: 'Standard line' });
    const ask = section({
      order: 1,
      type: 11,
      question: 'Asking the CRM',
      api_url: `${api.url}/crm?source=ivr`,
      branches: [
        { id: 1, keys: '1', goto: standard.id },
        { id: 2, keys: '2', goto: gold.id },
      ],
    });
    const s = await scenario(db, { numbers: ['+15550701', '+15550702'], campaign: { survey_snapshot: flowOf([ask, standard, gold]) } });
    await db.update(subscribers).set({ additional_vars: { tier: 'gold' } }).where(eq(subscribers.id, s.subscriberIds[0]));
    await pass(s);
    await s.clock.advance(1000);
    await pass(s);
    const byNumber = new Map(s.driver.calls.map((c) => [c.request.to, c.log]));
    assert.deepEqual(byNumber.get('+15550701'), ['play:Gold line', 'hangup:16']);
    assert.deepEqual(byNumber.get('+15550702'), ['play:Standard line', 'hangup:16']);
    assert.equal(api.seen.length, 2);
    const q = api.seen.find((u) => u.searchParams.get('tier') === 'gold');
    assert.ok(q, api.seen.join(' '));
    assert.equal(q.pathname, '/crm');
    assert.equal(q.searchParams.get('source'), 'ivr', 'the URL keeps its own parameters');
    assert.equal(q.searchParams.get('phone_number'), '+15550701');
    assert.equal(q.searchParams.get('campaign_id'), String(s.campaignId));
    assert.equal(q.searchParams.get('subscriber_id'), String(s.subscriberIds[0]));
    const answers = (await resultsOf(s.campaignId)).map((r) => r.response).sort();
    assert.deepEqual(answers, ['1', '2']);
  } finally {
    await api.close();
  }
});

test(`API call (11): a loopback URL is refused unless WEBHOOK_ALLOW_PRIVATE (SSRF) (${dbLabel})`, async () => {
  const api = await apiServer((_url, res) => res.end('1'));
  try {
    const next = section({ order: 2, type: 7, question: 'Next' });
    const ask = section({ order: 1, type: 11, question: 'CRM', api_url: `${api.url}/crm`, timeout: 1 });
    const s = await scenario(db, { allowPrivate: false, campaign: { survey_snapshot: flowOf([ask, next]) } });
    await pass(s);
    assert.equal(api.seen.length, 0, 'the loopback server was not called');
    assert.deepEqual(s.driver.calls[0].log, ['play:Next', 'hangup:16']);
    assert.deepEqual(await resultsOf(s.campaignId), [{ question: 'CRM', response: '', record_file: '' }]);
  } finally {
    await api.close();
  }
});

test(`API call (11): a server slower than the section's timeout takes the timeout branch; an unreachable one falls through (${dbLabel})`, async () => {
  const slow = await apiServer(() => undefined); // never answers
  const gone = await apiServer(() => undefined);
  const goneUrl = gone.url;
  await gone.close();
  try {
    const sorry = section({ order: 3, question: 'Sorry, try later' });
    const next = section({ order: 2, question: 'Next' });
    const flow = (url: string) =>
      flowOf([section({ order: 1, type: 11, question: 'CRM', api_url: url, timeout: 1, branches: [{ id: 1, keys: 'timeout', goto: sorry.id }] }), next, sorry]);
    const a = await scenario(db, { campaign: { survey_snapshot: flow(`${slow.url}/slow`) } });
    const started = Date.now();
    await pass(a);
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 4000, `the call waited ${took} ms for a 1 s API timeout`);
    assert.deepEqual(logOf(a), ['play:Sorry, try later', 'hangup:16']);
    assert.deepEqual(await resultsOf(a.campaignId), [{ question: 'CRM', response: '', record_file: '' }]);
    assert.equal(slow.seen.length, 1);

    const b = await scenario(db, { campaign: { survey_snapshot: flow(`${goneUrl}/down`) } });
    await pass(b);
    assert.deepEqual(logOf(b), ['play:Next', 'play:Sorry, try later', 'hangup:16'], 'no timeout: on to the next section by order');
    assert.deepEqual(await statusesOf(b.campaignId), [5], 'the call itself is answered and SENT');
  } finally {
    await slow.close();
  }
});

test(`speech recognition (13): the caller's words are the answer and pick the branch, case-insensitively (${dbLabel})`, async () => {
  const great = section({ order: 2, question: 'Great', type: 7 });
  const pardon = section({ order: 3, question: 'Pardon?', type: 7 });
  const listen = section({
    order: 1,
    type: 13,
    question: 'Say yes or no',
    branches: [
      { id: 1, keys: 'yes,yeah', goto: great.id },
      { id: 2, keys: 'timeout', goto: pardon.id },
    ],
  });
  const flow = flowOf([listen, great, pardon]);
  const s = await scenario(db, { numbers: ['+15550801', '+15550802'], campaign: { survey_snapshot: flow }, script: (to) => ({ speech: to.endsWith('1') ? ['Yeah'] : [], keys: ['9'] }) });
  await pass(s);
  await s.clock.advance(1000);
  await pass(s);
  const byNumber = new Map(s.driver.calls.map((c) => [c.request.to, c.log]));
  assert.deepEqual(byNumber.get('+15550801'), ['play:Say yes or no', 'listen', 'play:Great', 'hangup:16']);
  assert.deepEqual(byNumber.get('+15550802'), ['play:Say yes or no', 'listen', 'play:Pardon?', 'hangup:16']);
  assert.deepEqual((await resultsOf(s.campaignId)).map((r) => r.response).sort(), ['', 'Yeah']);
});

test(`asynchronous API call (14): the call goes on without waiting for the answer, and the request carries the call's variables (${dbLabel})`, async () => {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const api = await apiServer((_url, res) => void answered.then(() => res.end('ok')));
  try {
    const notify = section({ order: 1, type: 14, question: 'Notify', api_url: `${api.url}/hook`, timeout: 30 });
    const s = await scenario(db, { numbers: ['+15550901'], campaign: { survey_snapshot: flowOf([notify, section({ order: 2, question: 'After' })]) } });
    const started = Date.now();
    await pass(s);
    assert.ok(Date.now() - started < 5000, 'the call did not wait for the 30 s API timeout');
    assert.deepEqual(logOf(s), ['play:After', 'hangup:16']);
    const [cr] = await queryRows<{ status: number }>(db, sql`select status from callrequests where campaign_id = ${s.campaignId}`);
    assert.equal(cr.status, 4, 'the call is recorded while the API has not answered');
    for (let i = 0; i < 100 && api.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(api.seen.length, 1);
    assert.equal(api.seen[0].pathname, '/hook');
    assert.equal(api.seen[0].searchParams.get('phone_number'), '+15550901');
  } finally {
    answer();
    await api.close();
  }
});
