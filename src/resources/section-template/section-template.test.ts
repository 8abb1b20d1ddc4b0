import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { audioFiles, queues } from '../../db/schema.ts';
import { makeGateway, makePhonebook, makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);
const DOES_NOT_EXIST = ['Invalid hyperlink - Object does not exist.'];

async function insertAudio(owner: TestUser) {
  const values = { name: unique('audio'), audio_file: `audio/${unique()}.wav`, content_type: 'audio/wav', user_id: owner.id };
  return (await db.insert(audioFiles).values(values).returning())[0];
}

async function insertQueue(owner: TestUser) {
  return (await db.insert(queues).values({ name: unique('queue'), user_id: owner.id }).returning())[0];
}

async function createSurvey(owner: TestUser) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/survey-template/', { name: unique('survey') });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

const create = (owner: TestUser, body: Record<string, unknown>) => call(t.app, owner.auth, 'POST', '/rest-api/section-template/', body);

async function createSection(owner: TestUser, body: Record<string, unknown>) {
  const res = await create(owner, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

describe(`section-template (${dbLabel})`, () => {
  test('POST with survey and question answers 201 with every field at its default', async () => {
    const survey = await createSurvey(alice);
    const res = await create(alice, { survey: survey.url, question: 'Hello there' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    const { id, url, created_date, updated_date, ...rest } = res.data;
    assert.equal(url, `http://localhost:80/rest-api/section-template/${id}/`);
    assert.ok(created_date && updated_date);
    assert.deepEqual(rest, {
      order: 1,
      type: 1,
      question: 'Hello there',
      script: 'Hello there',
      audiofile: null,
      retries: null,
      timeout: 5,
      ...Object.fromEntries(Array.from({ length: 10 }, (_, d) => [`key_${d}`, null])),
      rating_laps: 9,
      validate_number: true,
      number_digits: 2,
      min_number: 0,
      max_number: 99,
      phonenumber: null,
      conference: null,
      completed: false,
      queue: null,
      sms_text: null,
      api_url: null,
      survey: survey.url,
      invalid_audiofile: null,
    });
  });

  test('order follows the last section of its survey, and a given order is kept', async () => {
    const survey = await createSurvey(alice);
    const other = await createSurvey(alice);
    assert.equal((await createSection(alice, { survey: survey.url, question: 'a', order: 7 })).order, 7);
    assert.equal((await createSection(alice, { survey: survey.url, question: 'b' })).order, 8);
    assert.equal((await createSection(alice, { survey: other.url, question: 'c' })).order, 1);
    assert.equal((await createSection(alice, { survey: survey.id, question: 'd', order: '2' })).order, 2);
  });

  test('POST without survey and question lists both as required', async () => {
    const res = await create(alice, { type: 1 });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { survey: ['This field is required.'], question: ['This field is required.'] });
  });

  test('an unknown type (15+) and malformed numbers answer 400', async () => {
    const survey = await createSurvey(alice);
    const res = await create(alice, { survey: survey.url, question: 'q', type: 15, timeout: 'soon', validate_number: 'maybe', api_url: 'ftp://x' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, {
      type: ['"15" is not a valid choice.'],
      timeout: ['A valid integer is required.'],
      validate_number: ['Must be a valid boolean.'],
      api_url: ['Enter a valid URL.'],
    });
  });

  test('each type that needs a field refuses to be created without it', async () => {
    const survey = await createSurvey(alice);
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ type: 2, key_1: '' }, { non_field_errors: ['A multi-choice section (type 2) needs at least one answer in key_0 … key_9.'] }],
      [{ type: 4, min_number: 10, max_number: 5 }, { max_number: ['Ensure max_number is greater than or equal to min_number.'] }],
      [{ type: 8 }, { conference: ['A conference section (type 8) needs a conference room.'] }],
      [{ type: 10 }, { sms_text: ['A send SMS section (type 10) needs an sms_text.'] }],
      [{ type: 11, audiofile: '' }, { api_url: ['An API call section (type 11) needs an http(s) api_url.'] }],
      [{ type: 14 }, { api_url: ['An API call section (type 14) needs an http(s) api_url.'] }],
      [{ type: 12, audiofile: '', queue: '' }, { queue: ['A queue section (type 12) needs a queue.'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await create(alice, { survey: survey.url, question: 'q', ...body });
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.deepEqual(res.data, errors);
    }
  });

  test("links to another user's survey, audio or queue do not exist; a wrong resource is an incorrect match", async () => {
    const mine = await createSurvey(alice);
    const theirs = await createSurvey(bob);
    const audio = await insertAudio(bob);
    const queue = await insertQueue(bob);
    const res = await create(alice, {
      survey: theirs.url,
      question: 'q',
      audiofile: `/rest-api/audio-files/${audio.id}/`,
      invalid_audiofile: audio.id,
      queue: `/rest-api/queue/${queue.id}/`,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { survey: DOES_NOT_EXIST, audiofile: DOES_NOT_EXIST, invalid_audiofile: DOES_NOT_EXIST, queue: DOES_NOT_EXIST });
    const wrong = await create(alice, { survey: mine.url, question: 'q', audiofile: `/rest-api/phonebook/${audio.id}/` });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.deepEqual(wrong.data, { audiofile: ['Invalid hyperlink - Incorrect URL match.'] });
  });

  test('an admin may link any user’s audio and queue', async () => {
    const survey = await createSurvey(bob);
    const audio = await insertAudio(bob);
    const queue = await insertQueue(bob);
    const body = { survey: survey.url, question: 'q', type: 12, queue: queue.id, audiofile: audio.id };
    const section = await createSection(admin, body);
    assert.equal(idOf(section.queue), queue.id);
    assert.equal(idOf(section.audiofile), audio.id);
  });

  test('the list shows only the caller’s sections and filters by survey_id', async () => {
    const survey = await createSurvey(alice);
    const other = await createSurvey(alice);
    const a = await createSection(alice, { survey: survey.url, question: 'a' });
    await createSection(alice, { survey: other.url, question: 'b' });
    const hidden = await createSection(bob, { survey: (await createSurvey(bob)).url, question: 'c' });
    const filtered = await call(t.app, alice.auth, 'GET', `/rest-api/section-template/?survey_id=${survey.id}`);
    assert.equal(filtered.statusCode, 200, filtered.body);
    assert.deepEqual(filtered.data.results.map((s: { id: number }) => s.id), [a.id]);
    const all = await call(t.app, alice.auth, 'GET', '/rest-api/section-template/?page_size=1000');
    assert.ok(!all.data.results.some((s: { id: number }) => s.id === hidden.id));
    // issue 11: filters are read the same way everywhere, as ?phonebook_id=abc is (400, not an empty list).
    const bad = await call(t.app, alice.auth, 'GET', '/rest-api/section-template/?survey_id=abc');
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, { survey_id: ['Enter a number.'] });
  });

  test("another user's section answers 404 to every method", async () => {
    const section = await createSection(bob, { survey: (await createSurvey(bob)).url, question: 'c' });
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const body = method === 'PATCH' || method === 'PUT' ? { question: 'x' } : undefined;
      const res = await call(t.app, alice.auth, method, `/rest-api/section-template/${section.id}/`, body);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
  });

  test('a call transfer without a phone number is saved, as Newfies allows; the flow lists it and a campaign cannot start', async () => {
    const survey = await createSurvey(alice);
    const res = await create(alice, { survey: survey.url, type: 6, question: 'xyz' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.phonenumber, null);
    const blank = await create(alice, { survey: survey.url, type: 6, question: 'xyz', phonenumber: '' });
    assert.equal(blank.statusCode, 201, blank.body);
    await call(t.app, alice.auth, 'DELETE', `/rest-api/section-template/${blank.data.id}/`);
    const flow = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.deepEqual(flow.data.problems, [`Section ${res.data.id} (order 1, "xyz") transfers the call but has no phone number.`]);
    const campaign = await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', {
      name: unique('camp'),
      aleg_gateway: (await makeGateway(db)).id,
      object_id: survey.id,
      phonebook: [await makePhonebook(db, alice.id, ['+12035550101'])],
    });
    assert.equal(campaign.statusCode, 201, campaign.body);
    const start = await call(t.app, alice.auth, 'PATCH', `/rest-api/campaigns/${campaign.data.id}/`, { status: 1 });
    assert.equal(start.statusCode, 400, start.body);
    assert.match(start.data.status[0], /transfers the call but has no phone number/);
    const fixed = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${res.data.id}/`, { phonenumber: '+12025550123' });
    assert.equal(fixed.statusCode, 202, fixed.body);
    const again = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.deepEqual(again.data.problems, []);
  });

  test('PATCH answers 202 and checks the type rules on the merged record', async () => {
    const survey = await createSurvey(alice);
    const section = await createSection(alice, { survey: survey.url, question: 'q' });
    const path = `/rest-api/section-template/${section.id}/`;
    const toConference = await call(t.app, alice.auth, 'PATCH', path, { type: 8 });
    assert.equal(toConference.statusCode, 400, toConference.body);
    assert.deepEqual(toConference.data, { conference: ['A conference section (type 8) needs a conference room.'] });
    const ok = await call(t.app, alice.auth, 'PATCH', path, { type: 6, phonenumber: '1000', question: 'Transfer' });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.equal(ok.body, '');
    const back = await call(t.app, alice.auth, 'PUT', path, { type: 2 });
    assert.equal(back.statusCode, 400, back.body);
    const read = await call(t.app, alice.auth, 'GET', path);
    assert.equal(read.data.type, 6);
    assert.equal(read.data.phonenumber, '1000');
    assert.equal(read.data.script, 'q', 'the script is not rewritten by a new question');
    const capture = await call(t.app, alice.auth, 'PATCH', path, { type: 4, min_number: 100 });
    assert.equal(capture.statusCode, 400, capture.body);
    assert.deepEqual(Object.keys(capture.data), ['max_number']);
  });

  test('a section with branches cannot move to another survey; one without may', async () => {
    const survey = await createSurvey(alice);
    const other = await createSurvey(alice);
    const a = await createSection(alice, { survey: survey.url, question: 'a' });
    const b = await createSection(alice, { survey: survey.url, question: 'b' });
    const c = await createSection(alice, { survey: survey.url, question: 'c' });
    const branch = await call(t.app, alice.auth, 'POST', '/rest-api/branching-template/', { section: a.url, keys: '0', goto: b.url });
    assert.equal(branch.statusCode, 201, branch.body);
    const moveB = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${b.id}/`, { survey: other.url });
    assert.equal(moveB.statusCode, 400, moveB.body);
    assert.ok(moveB.data.survey);
    const moveC = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${c.id}/`, { survey: other.url });
    assert.equal(moveC.statusCode, 202, moveC.body);
  });

  test('DELETE answers 204; branches that led to the section then hang up', async () => {
    const survey = await createSurvey(alice);
    const a = await createSection(alice, { survey: survey.url, question: 'a' });
    const b = await createSection(alice, { survey: survey.url, question: 'b' });
    const branch = await call(t.app, alice.auth, 'POST', '/rest-api/branching-template/', { section: a.url, keys: '0', goto: b.url });
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/section-template/${b.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/branching-template/${branch.data.id}/`);
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.data.goto, null);
  });
});
