/** /rest-api/sealed-survey/ and /rest-api/content-type/ (issue 17, item 6): read-only. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeGateway, makePhonebook, makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeGateway(db)).id;

/** A survey of one section made through the API, and a campaign on it (started or not). */
async function campaignOnSurvey(owner: TestUser, status: number) {
  const survey = await call(t.app, owner.auth, 'POST', '/rest-api/survey-template/', { name: unique('survey') });
  const section = await call(t.app, owner.auth, 'POST', '/rest-api/section-template/', { survey: survey.data.url, question: 'Hello', script: 'Hello there' });
  assert.equal(section.statusCode, 201, section.body);
  const campaign = await call(t.app, owner.auth, 'POST', '/rest-api/campaigns/', {
    name: unique('camp'),
    aleg_gateway: gateway,
    object_id: survey.data.id,
    phonebook: [await makePhonebook(db, owner.id, ['+12035550101'])],
    status,
  });
  assert.equal(campaign.statusCode, 201, campaign.body);
  return { survey: survey.data, section: section.data, campaign: campaign.data };
}

describe(`sealed-survey and content-type (${dbLabel})`, () => {
  test("a started campaign's frozen survey is listed and read; later edits of the template do not change it", async () => {
    const { survey, section, campaign } = await campaignOnSurvey(alice, 1);
    const edit = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${section.id}/`, { question: 'Changed' });
    assert.equal(edit.statusCode, 202, edit.body);
    const res = await call(t.app, alice.auth, 'GET', `/rest-api/sealed-survey/${campaign.id}/`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.url, `http://localhost:80/rest-api/sealed-survey/${campaign.id}/`);
    assert.equal(res.data.name, survey.name);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.equal(res.data.campaign, `http://localhost:80/rest-api/campaigns/${campaign.id}/`);
    assert.equal(res.data.survey_template, survey.url);
    assert.match(res.data.created_date, /Z$/);
    assert.deepEqual(res.data.sections.map((s: { id: number; question: string }) => [s.id, s.question]), [[section.id, 'Hello']]);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/sealed-survey/?page_size=1000');
    assert.deepEqual(list.data.results.find((r: { id: number }) => r.id === campaign.id), res.data);
    const root = await call(t.app, alice.auth, 'GET', '/rest-api/');
    assert.equal(root.data['sealed-survey'], 'http://localhost:80/rest-api/sealed-survey/');
  });

  test("a campaign not started has no sealed survey; another user's is 404 and absent; an admin sees it; writes are 405", async () => {
    const notStarted = await campaignOnSurvey(alice, 0);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/sealed-survey/${notStarted.campaign.id}/`)).statusCode, 404);
    const theirs = await campaignOnSurvey(bob, 1);
    const denied = await call(t.app, alice.auth, 'GET', `/rest-api/sealed-survey/${theirs.campaign.id}/`);
    assert.equal(denied.statusCode, 404, denied.body);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/sealed-survey/?page_size=1000');
    const ids = list.data.results.map((r: { id: number }) => r.id);
    assert.ok(!ids.includes(theirs.campaign.id) && !ids.includes(notStarted.campaign.id), JSON.stringify(ids));
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/sealed-survey/${theirs.campaign.id}/`)).statusCode, 200);
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE'] as const) {
      const url = method === 'POST' ? '/rest-api/sealed-survey/' : `/rest-api/sealed-survey/${theirs.campaign.id}/`;
      const res = await call(t.app, bob.auth, method, url, method === 'DELETE' ? undefined : {});
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
    }
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/sealed-survey/')).statusCode, 401);
  });

  test('the OpenAPI document describes every route of issue 17 with its response, under a tag that says "Newfies API beyond the seed"', async () => {
    type Operation = { tags?: string[]; responses?: Record<string, unknown> };
    const doc = (await call(t.app, undefined, 'GET', '/rest-api/openapi.json')).data as {
      paths: Record<string, Record<string, Operation>>;
      tags?: { name: string; description?: string }[];
    };
    const beyond = (op: Operation | undefined) =>
      (op?.tags ?? []).some((tag) => doc.tags?.find((d) => d.name === tag)?.description?.startsWith('Newfies API beyond the seed'));
    const expected: [string, string, string][] = [
      ['/rest-api/bulkcontact/', 'post', '200'],
      ['/rest-api/subscriber/', 'post', '200'],
      ['/rest-api/subcampaign/{campaign_id}/', 'get', '200'],
      ['/rest-api/subcampaign/{campaign_id}/{contact_id}/', 'patch', '202'],
      ['/rest-api/surveyaggregate/{survey_id}/', 'get', '200'],
      ['/rest-api/sealed-survey/', 'get', '200'],
      ['/rest-api/sealed-survey/{id}/', 'get', '200'],
      ['/rest-api/content-type/', 'get', '200'],
      ['/rest-api/sms-template/', 'post', '201'],
      ['/rest-api/mail-template/{id}/', 'get', '200'],
      ...['calendar', 'calendar-setting', 'calendar-user', 'calendar-user-profile', 'event', 'rule', 'alarm', 'alarm-request'].flatMap(
        (name): [string, string, string][] => [
          [`/rest-api/${name}/`, 'get', '200'],
          [`/rest-api/${name}/{id}/`, 'get', '200'],
        ],
      ),
      ...['calendar', 'calendar-setting', 'calendar-user', 'event', 'rule', 'alarm'].map((name): [string, string, string] => [`/rest-api/${name}/`, 'post', '201']),
    ];
    for (const [path, method, status] of expected) {
      const op = doc.paths[path]?.[method];
      assert.ok(op?.responses?.[status], `${method} ${path} → ${status} missing: ${JSON.stringify(doc.paths[path])}`);
      assert.ok(beyond(op), `${method} ${path} is not labelled beyond the seed: tags ${JSON.stringify(op?.tags)}, ${JSON.stringify(doc.tags)}`);
    }
    assert.equal(beyond(doc.paths['/rest-api/campaigns/']?.get), false, 'a seed route is not labelled beyond it');
  });

  test('content-type lists what a campaign object_id may name, as Newfies does (url, name, app_label, model)', async () => {
    const res = await call(t.app, alice.auth, 'GET', '/rest-api/content-type/');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, {
      count: 1,
      next: null,
      previous: null,
      results: [
        {
          id: 1,
          url: 'http://localhost:80/rest-api/content-type/1/',
          name: 'survey template',
          app_label: 'survey',
          model: 'survey_template',
          objects: 'http://localhost:80/rest-api/survey-template/',
        },
      ],
    });
    const one = await call(t.app, alice.auth, 'GET', '/rest-api/content-type/1/');
    assert.deepEqual(one.data, res.data.results[0]);
    assert.equal((await call(t.app, alice.auth, 'GET', '/rest-api/content-type/2/')).statusCode, 404);
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/content-type/', {})).statusCode, 405);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/content-type/')).statusCode, 401);
  });
});
