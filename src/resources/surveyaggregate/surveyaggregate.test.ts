/**
 * GET /rest-api/surveyaggregate/<survey_id>/ (issue 17, item 5): a survey's answers counted per
 * section and response over every campaign that ran it. The answers come from real calls: the
 * engine plays the frozen survey over the ScriptedDriver, each number pressing its own keys.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { sectionTemplates, surveyTemplates } from '../../db/schema.ts';
import type { CallScript } from '../../drivers/voice/scripted.ts';
import { flowOf, pass, scenario, section } from '../../engine/engine.fixtures.ts';
import { makeSurvey, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

const keys = (labels: Record<number, string>) => Array.from({ length: 10 }, (_, i) => labels[i] ?? null);

/** One campaign running `surveyId` (its first section a real template), calling numbers with their scripts. */
async function run(surveyId: number, templateId: number, scripts: Record<string, CallScript>) {
  const choice = section({ id: templateId, order: 1, type: 2, question: 'Satisfied? 1 yes, 2 no', keys: keys({ 1: 'yes', 2: 'no' }) });
  const message = section({ order: 2, type: 5, question: 'Leave a message' });
  const s = await scenario(db, {
    campaign: { survey_id: surveyId, survey_snapshot: flowOf([choice, message]) },
    numbers: Object.keys(scripts),
    script: (to) => scripts[to] ?? {},
  });
  for (let i = 0; i < 10 && s.driver.calls.length < s.subscriberIds.length; i++) {
    await pass(s);
    await s.clock.advance(1000);
  }
  assert.equal(s.driver.calls.length, Object.keys(scripts).length, 'every number was called');
}

async function answeredSurvey() {
  const surveyId = await makeSurvey(db, alice.id, 1);
  const [template] = await db.select().from(sectionTemplates).where(eq(sectionTemplates.survey_id, surveyId));
  await run(surveyId, template.id, {
    '+15550001': { keys: ['1'], recordSeconds: 5 },
    '+15550002': { keys: ['2'], recordSeconds: 0 },
    '+15550003': { failCause: 17 },
  });
  await run(surveyId, template.id, { '+15550011': { keys: ['1'], recordSeconds: 3 } });
  return { surveyId, templateId: template.id };
}

const aggregate = (path: string, auth: string | undefined) => call(t.app, auth, 'GET', `/rest-api/surveyaggregate/${path}`);

describe(`surveyaggregate (${dbLabel})`, () => {
  test('answers of every campaign that ran the survey, counted per section and response, as a bare array', async () => {
    const { surveyId, templateId } = await answeredSurvey();
    const res = await aggregate(`${surveyId}/`, alice.auth);
    assert.equal(res.statusCode, 200, res.body);
    const section1 = `http://localhost:80/rest-api/section-template/${templateId}/`;
    assert.deepEqual(res.data, [
      { section: section1, section__question: 'Satisfied? 1 yes, 2 no', response: '1', count: 2 },
      { section: section1, section__question: 'Satisfied? 1 yes, 2 no', response: '2', count: 1 },
      { section: null, section__question: 'Leave a message', response: 'recorded', count: 2 },
      { section: null, section__question: 'Leave a message', response: '', count: 1 },
    ], res.body);
    const byAdmin = await aggregate(`${surveyId}`, admin.auth);
    assert.deepEqual(byAdmin.data, res.data);
  });

  test("a survey nobody ran is []; another user's survey, an unknown id and the bare path answer 404 with Newfies' message", async () => {
    const quiet = await makeSurvey(db, alice.id, 1);
    const none = await aggregate(`${quiet}/`, alice.auth);
    assert.equal(none.statusCode, 200, none.body);
    assert.deepEqual(none.data, []);
    const bobs = await makeSurvey(db, bob.id, 1);
    for (const path of [`${bobs}/`, '999999/', 'x/']) {
      const res = await aggregate(path, alice.auth);
      assert.equal(res.statusCode, 404, `${path}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'Not found.', error: 'Survey ID is not valid!' });
    }
    const bare = await aggregate('', alice.auth);
    assert.equal(bare.statusCode, 404, bare.body);
    assert.deepEqual(bare.data, { detail: 'Not found.', error: 'Please enter Survey ID.' });
    assert.equal((await aggregate(`${quiet}/`, undefined)).statusCode, 401);
    const [row] = await db.select().from(surveyTemplates).where(eq(surveyTemplates.id, bobs));
    assert.equal(row.user_id, bob.id);
  });
});
