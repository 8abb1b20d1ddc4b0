import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { audioFiles, queues } from '../../db/schema.ts';
import { makeWav } from '../../../test/audio-fixtures.ts';
import { makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

async function insertAudio(owner: TestUser) {
  const [row] = await db
    .insert(audioFiles)
    .values({ name: unique('audio'), audio_file: `audio/${unique()}.wav`, content_type: 'audio/wav', user_id: owner.id })
    .returning();
  return row;
}

async function insertQueue(owner: TestUser) {
  return (await db.insert(queues).values({ name: unique('queue'), user_id: owner.id }).returning())[0];
}

async function createSurvey(owner: TestUser, body: Record<string, unknown> = {}) {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/survey-template/', { name: unique('survey'), ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.data;
}

async function post(owner: TestUser, resource: string, body: Record<string, unknown>) {
  const res = await call(t.app, owner.auth, 'POST', `/rest-api/${resource}/`, body);
  assert.equal(res.statusCode, 201, `${resource} ${JSON.stringify(body)}: ${res.body}`);
  return res.data;
}

describe(`survey-template (${dbLabel})`, () => {
  test('POST answers 201 with the record, its Location, a null description and the caller as user', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/survey-template/', { name: 'Customer survey' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.deepEqual(Object.keys(res.data).sort(), ['created_date', 'description', 'id', 'name', 'updated_date', 'url', 'user']);
    assert.equal(res.data.name, 'Customer survey');
    assert.equal(res.data.description, null);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.match(res.data.created_date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  test('POST without a name answers 400 listing it; a blank name or another user is refused', async () => {
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/survey-template/', { description: 'x' });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { name: ['This field is required.'] });
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/survey-template/', { name: ' ', user: `/rest-api/users/${bob.id}/` });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(bad.data, { name: ['This field may not be blank.'], user: ['Invalid hyperlink - Object does not exist.'] });
    const long = await call(t.app, alice.auth, 'POST', '/rest-api/survey-template/', { name: 'n'.repeat(101) });
    assert.equal(long.statusCode, 400, long.body);
  });

  test('an admin may create a survey for another user', async () => {
    const survey = await createSurvey(admin, { user: `/rest-api/users/${bob.id}/`, description: 'for bob' });
    assert.equal(idOf(survey.user), bob.id);
    const seen = await call(t.app, bob.auth, 'GET', survey.url.replace('http://localhost:80', ''));
    assert.equal(seen.statusCode, 200, seen.body);
    assert.equal(seen.data.description, 'for bob');
  });

  test('PATCH and PUT answer 202 with an empty body and change the record', async () => {
    const survey = await createSurvey(alice);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/survey-template/${survey.id}/`, { name: 'renamed' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/survey-template/${survey.id}`, { description: 'about' });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/`);
    assert.equal(read.data.name, 'renamed');
    assert.equal(read.data.description, 'about');
    const blank = await call(t.app, alice.auth, 'PATCH', `/rest-api/survey-template/${survey.id}/`, { name: '' });
    assert.equal(blank.statusCode, 400, blank.body);
  });

  test("another user's survey is 404 and absent from their list; an admin sees it", async () => {
    const survey = await createSurvey(alice);
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const res = await call(t.app, bob.auth, method, `/rest-api/survey-template/${survey.id}/`, method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' });
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`)).statusCode, 404);
    const list = await call(t.app, bob.auth, 'GET', '/rest-api/survey-template/?page_size=1000');
    assert.ok(!list.data.results.some((s: { id: number }) => s.id === survey.id));
    const all = await call(t.app, admin.auth, 'GET', '/rest-api/survey-template/?page_size=1000');
    assert.ok(all.data.results.some((s: { id: number }) => s.id === survey.id));
  });

  test('without credentials the survey routes answer 401', async () => {
    for (const url of ['/rest-api/survey-template/', '/rest-api/section-template/', '/rest-api/branching-template/']) {
      const res = await call(t.app, undefined, 'GET', url);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['www-authenticate'], 'Basic realm="api"');
    }
  });

  test('DELETE answers 204 and takes the sections and their branches with it', async () => {
    const survey = await createSurvey(alice);
    const first = await post(alice, 'section-template', { survey: survey.url, question: 'one' });
    const second = await post(alice, 'section-template', { survey: survey.url, question: 'two' });
    const branch = await post(alice, 'branching-template', { section: first.url, keys: '0', goto: second.url });
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/survey-template/${survey.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    for (const url of [survey.url, first.url, branch.url]) {
      assert.equal((await call(t.app, alice.auth, 'GET', url.replace('http://localhost:80', ''))).statusCode, 404, url);
    }
  });

  test('the flow of a survey without sections names the problem', async () => {
    const survey = await createSurvey(alice);
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, { survey: survey.url, sections: [], problems: ['The survey has no sections.'] });
  });
});

/** POST /rest-api/audio-files/ as a client does it: multipart with name and a WAV file part. */
async function uploadWav(owner: TestUser) {
  const boundary = `----b${unique()}`;
  const part = (headers: string, body: Buffer | string) => Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(body), Buffer.from('\r\n')]);
  const payload = Buffer.concat([
    part('Content-Disposition: form-data; name="name"', 'welcome'),
    part('Content-Disposition: form-data; name="audio_file"; filename="welcome.wav"\r\nContent-Type: audio/wav', makeWav(1)),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  const res = await t.app.inject({
    method: 'POST',
    url: '/rest-api/audio-files/',
    headers: { authorization: owner.auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  assert.equal(res.statusCode, 201, res.body);
  return JSON.parse(res.body) as { id: number; audio_file: string };
}

describe(`IVR workflow end to end (${dbLabel})`, () => {
  test("the spec's workflow: upload audio, create a survey and a play section linking it, the flow is ready", async () => {
    const audio = await uploadWav(alice);
    const survey = await createSurvey(alice);
    const section = await post(alice, 'section-template', { type: 1, audiofile: `/rest-api/audio-files/${audio.id}/`, question: 'Welcome', survey: survey.url });
    assert.equal(idOf(section.audiofile), audio.id);
    const flow = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.equal(flow.statusCode, 200, flow.body);
    assert.deepEqual(flow.data.problems, []);
    assert.equal(flow.data.sections[0].audiofile, audio.audio_file);
    const other = await call(t.app, bob.auth, 'POST', '/rest-api/section-template/', { audiofile: audio.id, question: 'x', survey: (await createSurvey(bob)).url });
    assert.deepEqual(other.data, { audiofile: ['Invalid hyperlink - Object does not exist.'] });
  });

  test('a survey with a section of every type, branched, checks clean', async () => {
    const audio = await insertAudio(alice);
    const queue = await insertQueue(alice);
    const survey = await createSurvey(alice, { description: 'every section type' });
    const audioUrl = `/rest-api/audio-files/${audio.id}/`;
    const bodies: Record<string, unknown>[] = [
      { type: 1, question: 'Welcome', audiofile: audioUrl },
      { type: 2, question: 'Press 1 or 2', key_1: 'yes', key_2: 'no', invalid_audiofile: audioUrl, retries: 2 },
      { type: 3, question: 'Rate us', rating_laps: 5 },
      { type: 4, question: 'Your age', number_digits: 3, min_number: 18, max_number: 120 },
      { type: 5, question: 'Leave a message' },
      { type: 6, question: 'Transferring', phonenumber: '+12025550123' },
      { type: 8, question: 'Joining', conference: 'room-42' },
      { type: 9, question: 'Removing you', completed: true },
      { type: 10, question: 'Texting', sms_text: 'Thank you' },
      { type: 11, question: 'Asking the CRM', api_url: 'https://crm.example.com/ivr', audiofile: '' },
      { type: 12, question: 'Hold on', queue: `/rest-api/queue/${queue.id}/`, audiofile: '' },
      { type: 13, question: 'Say yes or no' },
      { type: 14, question: 'Notifying', api_url: 'http://hooks.example.com/call' },
      { type: 7, question: 'Goodbye' },
    ];
    const sections = [];
    for (const body of bodies) sections.push(await post(alice, 'section-template', { survey: survey.url, ...body }));
    assert.deepEqual(sections.map((s) => s.order), bodies.map((_, i) => i + 1), 'orders follow creation');
    assert.equal(sections[0].audiofile, `http://localhost:80${audioUrl}`);
    assert.equal(sections[10].audiofile, null);
    assert.equal(sections[10].queue, `http://localhost:80/rest-api/queue/${queue.id}/`);
    const [, menu, , , , transfer] = sections;

    let flow = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.equal(flow.statusCode, 200, flow.body);
    assert.deepEqual(flow.data.problems, [`Section ${menu.id} (order 2, "Press 1 or 2") offers key 1, 2 but has no branch for it and no "any" branch.`]);

    await post(alice, 'branching-template', { section: menu.url, keys: '1', goto: sections[2].url });
    await post(alice, 'branching-template', { section: menu.url, keys: '2', goto: null });
    await post(alice, 'branching-template', { section: transfer.url, keys: '0', goto: sections[6].url });
    flow = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.equal(flow.statusCode, 200, flow.body);
    assert.deepEqual(flow.data.problems, []);
    assert.equal(flow.data.sections.length, 14);
    assert.equal(flow.data.sections[0].audiofile, audio.audio_file);
    assert.equal(flow.data.sections[10].queue, queue.name);
    assert.deepEqual(flow.data.sections[1].keys, [null, 'yes', 'no', null, null, null, null, null, null, null]);
    assert.deepEqual(flow.data.sections[1].branches.map((b: { keys: string; goto: number | null }) => [b.keys, b.goto]), [
      ['1', sections[2].id],
      ['2', null],
    ]);
  });

  test('a section skipped by every branch shows as unreachable in the flow check', async () => {
    const survey = await createSurvey(alice);
    const first = await post(alice, 'section-template', { survey: survey.url, question: 'hello' });
    const lost = await post(alice, 'section-template', { survey: survey.url, question: 'lost' });
    const last = await post(alice, 'section-template', { survey: survey.url, question: 'bye' });
    await post(alice, 'branching-template', { section: first.url, keys: '0', goto: last.url });
    const flow = await call(t.app, alice.auth, 'GET', `/rest-api/survey-template/${survey.id}/flow/`);
    assert.equal(flow.statusCode, 200, flow.body);
    assert.deepEqual(flow.data.problems, [`Section ${lost.id} (order 2, "lost") can never be reached: no branch leads to it and no section before it falls through to it.`]);
  });
});
