import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);
const DOES_NOT_EXIST = ['Invalid hyperlink - Object does not exist.'];

async function post(owner: TestUser, resource: string, body: Record<string, unknown>) {
  const res = await call(t.app, owner.auth, 'POST', `/rest-api/${resource}/`, body);
  assert.equal(res.statusCode, 201, `${resource}: ${res.body}`);
  return res.data;
}

/** A survey of `owner` with `count` sections of `type`. */
async function surveyWithSections(owner: TestUser, count = 3, extra: Record<string, unknown> = {}) {
  const survey = await post(owner, 'survey-template', { name: unique('survey') });
  const sections = [];
  for (let i = 0; i < count; i++) sections.push(await post(owner, 'section-template', { survey: survey.url, question: `q${i}`, ...extra }));
  return { survey, sections };
}

const branch = (owner: TestUser, body: Record<string, unknown>) => call(t.app, owner.auth, 'POST', '/rest-api/branching-template/', body);

describe(`branching-template (${dbLabel})`, () => {
  test('POST answers 201 with the record and Location; goto omitted means hang up', async () => {
    const { sections } = await surveyWithSections(alice, 2);
    const res = await branch(alice, { section: sections[0].url, keys: '0', goto: sections[1].url });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.deepEqual(Object.keys(res.data).sort(), ['created_date', 'goto', 'id', 'keys', 'section', 'updated_date', 'url']);
    assert.equal(res.data.section, sections[0].url);
    assert.equal(res.data.goto, sections[1].url);
    const hangup = await branch(alice, { section: sections[1].url, keys: 'any' });
    assert.equal(hangup.statusCode, 201, hangup.body);
    assert.equal(hangup.data.goto, null);
  });

  test('keys are digits, comma-separated answers or a special word, stored normalised', async () => {
    const { sections } = await surveyWithSections(alice, 1, { type: 2, key_1: 'a', key_2: 'b' });
    const section = sections[0].url;
    assert.equal((await post(alice, 'branching-template', { section, keys: ' 1 , 2 ' })).keys, '1,2');
    assert.equal((await post(alice, 'branching-template', { section, keys: 'INVALID' })).keys, 'invalid');
    assert.equal((await post(alice, 'branching-template', { section, keys: 'timeout' })).keys, 'timeout');
    assert.equal((await post(alice, 'branching-template', { section, keys: 42 })).keys, '42');
    for (const keys of ['one', '1,,2', 'any,1', '', '1;2']) {
      const res = await branch(alice, { section, keys });
      assert.equal(res.statusCode, 400, `${keys}: ${res.body}`);
      assert.ok(res.data.keys, res.body);
    }
  });

  test('a speech recognition section takes words as keys', async () => {
    const { sections } = await surveyWithSections(alice, 1, { type: 13 });
    assert.equal((await post(alice, 'branching-template', { section: sections[0].url, keys: 'yes, oui' })).keys, 'yes,oui');
  });

  test('POST without section and keys lists both as required', async () => {
    const res = await branch(alice, {});
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { keys: ['This field is required.'], section: ['This field is required.'] });
  });

  test('a second branch for the same keys, or for an answer already taken, answers 400', async () => {
    const { sections } = await surveyWithSections(alice, 2);
    await post(alice, 'branching-template', { section: sections[0].url, keys: '1,2' });
    for (const keys of ['1,2', '2', '3,1']) {
      const res = await branch(alice, { section: sections[0].url, keys });
      assert.equal(res.statusCode, 400, `${keys}: ${res.body}`);
      assert.match(res.data.keys[0], /already has a branch for/);
    }
    assert.equal((await branch(alice, { section: sections[1].url, keys: '1,2' })).statusCode, 201, 'another section is free');
  });

  test('goto must be a section of the same survey', async () => {
    const { sections } = await surveyWithSections(alice, 1);
    const other = await surveyWithSections(alice, 1);
    const res = await branch(alice, { section: sections[0].url, keys: '1', goto: other.sections[0].url });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { goto: ['The section to go to must be a section of the same survey.'] });
  });

  test("links to another user's sections do not exist", async () => {
    const { sections } = await surveyWithSections(alice, 1);
    const theirs = await surveyWithSections(bob, 1);
    const res = await branch(alice, { section: theirs.sections[0].url, keys: '1', goto: theirs.sections[0].id });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { section: DOES_NOT_EXIST, goto: DOES_NOT_EXIST });
    const mixed = await branch(alice, { section: sections[0].url, keys: '1', goto: `/rest-api/survey-template/${sections[0].id}/` });
    assert.deepEqual(mixed.data, { goto: ['Invalid hyperlink - Incorrect URL match.'] });
  });

  test('no branch is created automatically', async () => {
    const { sections } = await surveyWithSections(alice, 3);
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/branching-template/?section_id=${sections[0].id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.count, 0);
  });

  test('PATCH and PUT answer 202 and check the merged branch', async () => {
    const { sections } = await surveyWithSections(alice, 3);
    const one = await post(alice, 'branching-template', { section: sections[0].url, keys: '1', goto: sections[1].url });
    await post(alice, 'branching-template', { section: sections[0].url, keys: '2' });
    const path = `/rest-api/branching-template/${one.id}/`;
    const taken = await call(t.app, alice.auth, 'PATCH', path, { keys: '2' });
    assert.equal(taken.statusCode, 400, taken.body);
    const same = await call(t.app, alice.auth, 'PATCH', path, { keys: '1', goto: sections[2].url });
    assert.equal(same.statusCode, 202, same.body);
    assert.equal(same.body, '');
    const put = await call(t.app, alice.auth, 'PUT', path, { goto: null });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, alice.auth, 'GET', path);
    assert.equal(read.data.goto, null);
    assert.equal(read.data.keys, '1');
    const away = await call(t.app, alice.auth, 'PATCH', path, { section: (await surveyWithSections(alice, 1)).sections[0].url, goto: sections[1].url });
    assert.equal(away.statusCode, 400, away.body);
    assert.ok(away.data.goto);
    const nulled = await call(t.app, alice.auth, 'PATCH', path, { section: null });
    assert.deepEqual(nulled.data, { section: ['This field may not be null.'] });
  });

  test("another user's branch answers 404 and is absent from lists; an admin sees it", async () => {
    const { sections } = await surveyWithSections(bob, 1);
    const theirs = await post(bob, 'branching-template', { section: sections[0].url, keys: 'any' });
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const body = method === 'PATCH' || method === 'PUT' ? { keys: '3' } : undefined;
      const res = await call(t.app, alice.auth, method, `/rest-api/branching-template/${theirs.id}/`, body);
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/branching-template/?page_size=1000');
    assert.ok(!list.data.results.some((b: { id: number }) => b.id === theirs.id));
    const all = await call(t.app, admin.auth, 'GET', '/rest-api/branching-template/?page_size=1000');
    assert.ok(all.data.results.some((b: { id: number }) => b.id === theirs.id));
  });

  test('DELETE answers 204 and the branch is gone', async () => {
    const { sections } = await surveyWithSections(alice, 1);
    const one = await post(alice, 'branching-template', { section: sections[0].url, keys: '0' });
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/branching-template/${one.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/branching-template/${one.id}/`)).statusCode, 404);
  });
});
