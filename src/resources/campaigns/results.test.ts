/**
 * /rest-api/campaigns/<id>/results/: a voice campaign's survey answers counted per question.
 * The answers come from real calls: the engine plays a frozen survey over the ScriptedDriver
 * (src/engine/engine.fixtures.ts), each number pressing its own keys; the counts are read back
 * through the API. Visibility is the campaign's own (another user's → 404, an admin sees all).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { sectionTemplates } from '../../db/schema.ts';
import { flowOf, pass, scenario, section } from '../../engine/engine.fixtures.ts';
import type { CallScript } from '../../drivers/voice/scripted.ts';
import { makeCampaign, makeSurvey, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const bob = await makeUser(db);

const keys = (labels: Record<number, string>) => Array.from({ length: 10 }, (_, i) => labels[i] ?? null);

/**
 * A campaign whose survey asks a multi-choice question (a real section template, so its link
 * shows), an age and a recorded message, called at four numbers: two press 1, one presses 2 and
 * records nothing, one is busy (no answer at all).
 */
async function answeredCampaign() {
  const surveyId = await makeSurvey(db, admin.id, 1);
  const [template] = await db.select().from(sectionTemplates).where(eq(sectionTemplates.survey_id, surveyId));
  const age = section({ order: 2, type: 4, question: 'Age?', number_digits: 2, min_number: 18, max_number: 99 });
  const message = section({ order: 3, type: 5, question: 'Leave a message' });
  const choice = section({ id: template.id, order: 1, type: 2, question: 'Satisfied? 1 yes, 2 no', keys: keys({ 1: 'yes', 2: 'no' }) });
  const scripts: Record<string, CallScript> = {
    '+15550001': { keys: ['1', '42'], recordSeconds: 5 },
    '+15550002': { keys: ['1', '42'], recordSeconds: 7 },
    '+15550003': { keys: ['2', '30'], recordSeconds: 0 },
    '+15550004': { failCause: 17 },
  };
  const s = await scenario(db, {
    campaign: { survey_snapshot: flowOf([choice, age, message]) },
    numbers: Object.keys(scripts),
    script: (to) => scripts[to] ?? {},
  });
  // The engine paces its calls: a pass, a second later another, until every number was dialled.
  for (let i = 0; i < 10 && s.driver.calls.length < s.subscriberIds.length; i++) {
    await pass(s);
    await s.clock.advance(1000);
  }
  assert.equal(s.driver.calls.length, 4, 'the four numbers were called');
  return { s, templateId: template.id };
}

const results = (campaignId: number, auth: string | undefined) => call(t.app, auth, 'GET', `/rest-api/campaigns/${campaignId}/results/`);

describe(`campaign survey results (${dbLabel})`, () => {
  test('answers are counted per question in play order, most frequent first, with their key labels; a recording counts as "recorded"', async () => {
    const { s, templateId } = await answeredCampaign();
    const res = await results(s.campaignId, s.user.auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.campaign, `http://localhost:80/rest-api/campaigns/${s.campaignId}/`);
    assert.deepEqual(res.data.results, [
      {
        section: `http://localhost:80/rest-api/section-template/${templateId}/`,
        section_order: 1,
        question: 'Satisfied? 1 yes, 2 no',
        answered: 3,
        responses: [{ response: '1', label: 'yes', count: 2 }, { response: '2', label: 'no', count: 1 }],
      },
      {
        section: null,
        section_order: 2,
        question: 'Age?',
        answered: 3,
        responses: [{ response: '42', label: null, count: 2 }, { response: '30', label: null, count: 1 }],
      },
      {
        section: null,
        section_order: 3,
        question: 'Leave a message',
        answered: 3,
        responses: [{ response: 'recorded', label: null, count: 2 }, { response: '', label: null, count: 1 }],
      },
    ], res.body);
  });

  test("another user's campaign is 404; an admin sees it", async () => {
    const { s } = await answeredCampaign();
    const denied = await results(s.campaignId, bob.auth);
    assert.equal(denied.statusCode, 404, denied.body);
    const seen = await results(s.campaignId, admin.auth);
    assert.equal(seen.statusCode, 200, seen.body);
    assert.equal(seen.data.results.length, 3);
  });

  test('a campaign without answers has an empty list; an unknown id is 404', async () => {
    const campaign = await makeCampaign(db, { user_id: bob.id });
    const res = await results(campaign.id, bob.auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data.results, []);
    assert.equal((await results(999_999_999, bob.auth)).statusCode, 404);
    assert.equal((await results(0, bob.auth)).statusCode, 404);
  });

  test('without credentials 401; other methods 405; not under SMS campaigns', async () => {
    const campaign = await makeCampaign(db, { user_id: bob.id });
    assert.equal((await results(campaign.id, undefined)).statusCode, 401);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, bob.auth, method, `/rest-api/campaigns/${campaign.id}/results/`, method === 'DELETE' ? undefined : {});
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
    }
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/sms-campaigns/${campaign.id}/results/`)).statusCode, 404);
  });

  test('the route is in the OpenAPI description with its response schema', async () => {
    const res = await call(t.app, undefined, 'GET', '/rest-api/openapi.json');
    const op = res.data.paths['/rest-api/campaigns/{id}/results/']?.get;
    assert.ok(op, Object.keys(res.data.paths).join('\n'));
    assert.ok(op.responses['200'].content['application/json'].schema.properties.results, JSON.stringify(op.responses));
  });
});
