import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeGateway, makePhonebook, makeSmsGateway, makeSurvey, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, idOf, testApp } from '../../../test/helpers.ts';
import { alarmRequests, alarms, calendarEvents, calendarRules, calendarSettings } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const alice = await makeUser(db);
const bob = await makeUser(db);
const admin = await makeUser(db, { admin: true });

type Who = { auth: string };

async function post(who: Who, resource: string, body: Record<string, unknown>) {
  const res = await call(t.app, who.auth, 'POST', `/rest-api/${resource}/`, body);
  assert.equal(res.statusCode, 201, `${resource}: ${res.body}`);
  assert.equal(res.headers.location, res.data.url);
  return res.data;
}

/** A calendar setting, a calendar user, a calendar, an event and an alarm of `who`. */
async function appointment(who: Who & { id: number }) {
  const survey = await makeSurvey(db, who.id);
  const setting = await post(who, 'calendar-setting', { label: 'reminders', callerid: '+15550000000', survey, aleg_gateway: (await makeGateway(db)).id });
  const person = await post(who, 'calendar-user', { username: unique('cu'), calendar_setting: setting.url });
  const calendar = await post(who, 'calendar', { name: 'Dentist', user: person.id });
  const event = await post(who, 'event', { title: 'Check-up', start: '2026-12-10 10:00:00', end: '2026-12-10T10:30:00Z', calendar: calendar.url });
  const alarm = await post(who, 'alarm', { event: event.id, alarm_phonenumber: '+15550101', advance_notice: 86400 });
  return { setting, person, calendar, event, alarm };
}

describe(`appointment resources (${dbLabel})`, () => {
  test('the eight resources are listed in the API root', async () => {
    const root = await call(t.app, alice.auth, 'GET', '/rest-api/');
    assert.equal(root.statusCode, 200, root.body);
    for (const name of ['calendar-setting', 'calendar-user', 'calendar-user-profile', 'calendar', 'rule', 'event', 'alarm', 'alarm-request']) {
      assert.ok(JSON.stringify(root.data).includes(`/rest-api/${name}/`), `${name} missing from ${root.body}`);
    }
  });

  test('a calendar setting, calendar user, calendar, event and alarm are created with links in three forms and read back', async () => {
    const { setting, person, calendar, event, alarm } = await appointment(alice);
    assert.equal(setting.label, 'reminders');
    assert.equal(setting.callerid, '+15550000000');
    assert.match(setting.survey, /\/rest-api\/survey-template\/\d+\/$/);
    assert.equal(setting.call_timeout, 60);
    assert.equal(setting.campaign, null);
    assert.equal(person.calendar_setting, setting.url);
    assert.equal(calendar.user, person.url);
    assert.equal(event.calendar, calendar.url);
    assert.equal(event.start, '2026-12-10T10:00:00.000000Z');
    assert.equal(event.status, 1);
    assert.equal(alarm.event, event.url);
    // Without date_start_notice an alarm is about its event's start; advance_notice moves it earlier.
    assert.equal(alarm.date_start_notice, event.start);
    assert.equal(alarm.status, 1);
    assert.equal(alarm.result, null);
    assert.equal(alarm.method, 1);
    assert.equal(alarm.daily_start, '00:00:00');
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/alarm/?event=${event.id}`);
    assert.deepEqual(list.data.results.map((a: { id: number }) => a.id), [alarm.id]);
    const profile = await call(t.app, alice.auth, 'GET', `/rest-api/calendar-user-profile/${person.id}/`);
    assert.equal(profile.statusCode, 200, profile.body);
    assert.equal(profile.data.user, person.id);
    assert.equal(profile.data.calendar_setting, setting.id);
  });

  test('missing and bad fields answer 400 listing each, and store nothing', async () => {
    const { calendar, event } = await appointment(alice);
    const events = await db.$count(calendarEvents);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/event/', {});
    assert.deepEqual(missing.data, {
      title: ['This field is required.'],
      start: ['This field is required.'],
      end: ['This field is required.'],
      calendar: ['This field is required.'],
    });
    const backwards = await call(t.app, alice.auth, 'POST', '/rest-api/event/', { title: 'x', start: '2026-12-10 10:00', end: '2026-12-10 09:00', calendar: calendar.id });
    assert.deepEqual(backwards.data, { end: ['The end time must be later than the start time.'] });
    const badDate = await call(t.app, alice.auth, 'POST', '/rest-api/event/', { title: 'x', start: 'tomorrow', end: '2026-12-10 09:00', calendar: calendar.id });
    assert.equal(badDate.statusCode, 400, badDate.body);
    assert.ok(badDate.data.start);
    assert.equal(await db.$count(calendarEvents), events);

    const before = await db.$count(alarms);
    const noPhone = await call(t.app, alice.auth, 'POST', '/rest-api/alarm/', { event: event.id, method: 2 });
    assert.deepEqual(noPhone.data, { alarm_phonenumber: ['This field is required for a call or SMS alarm (methods 1 and 2).'] });
    const noMail = await call(t.app, alice.auth, 'POST', '/rest-api/alarm/', { event: event.id, method: 3, alarm_phonenumber: '+15550101' });
    assert.deepEqual(noMail.data, { alarm_email: ['This field is required for an e-mail alarm (method 3).'] });
    const bad = await call(t.app, alice.auth, 'POST', '/rest-api/alarm/', { event: event.id, method: 4, alarm_email: 'nope', daily_start: '25:00' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.data).sort(), ['alarm_email', 'daily_start', 'method']);
    assert.equal(await db.$count(alarms), before);

    const rules = await db.$count(calendarRules);
    const rule = await call(t.app, alice.auth, 'POST', '/rest-api/rule/', { name: 'weekly', frequency: 'FORTNIGHTLY', params: 'count=3' });
    assert.deepEqual(Object.keys(rule.data).sort(), ['frequency', 'params']);
    assert.equal(await db.$count(calendarRules), rules);
    const settings = await db.$count(calendarSettings);
    const setting = await call(t.app, alice.auth, 'POST', '/rest-api/calendar-setting/', { callerid: '1', amd_behavior: 9 });
    assert.deepEqual(Object.keys(setting.data).sort(), ['amd_behavior', 'label']);
    assert.equal(await db.$count(calendarSettings), settings);
  });

  test("a calendar setting takes a sealed survey's link, as Newfies' curl posts it, as the template it was sealed from while that plays the same", async () => {
    /** A campaign of `who` on a new survey template; started (status 1), it seals the survey. */
    const campaignOn = async (who: Who & { id: number }, status: number) => {
      const survey = await makeSurvey(db, who.id);
      const phonebook = [await makePhonebook(db, who.id, ['+12035550101'])];
      const res = await call(t.app, who.auth, 'POST', '/rest-api/campaigns/', { name: unique('c'), aleg_gateway: (await makeGateway(db)).id, object_id: survey, phonebook, status });
      assert.equal(res.statusCode, 201, res.body);
      return { survey, campaign: res.data.id as number };
    };
    const { survey, campaign } = await campaignOn(alice, 1);
    const sealed = `http://localhost/rest-api/sealed-survey/${campaign}/`;
    const setting = await post(alice, 'calendar-setting', { label: 'sealed', survey: sealed });
    assert.equal(setting.survey, `http://localhost:80/rest-api/survey-template/${survey}/`);
    const patched = await call(t.app, alice.auth, 'PATCH', `/rest-api/calendar-setting/${setting.id}/`, { survey: `/rest-api/sealed-survey/${campaign}/` });
    assert.equal(patched.statusCode, 202, patched.body);

    const before = await db.$count(calendarSettings);
    const refused = async (link: string, message: string) => {
      const res = await call(t.app, alice.auth, 'POST', '/rest-api/calendar-setting/', { label: 'x', survey: link });
      assert.equal(res.statusCode, 400, `${link}: ${res.body}`);
      assert.deepEqual(res.data, { survey: [message] }, link);
    };
    const bobs = await campaignOn(bob, 1);
    await refused(`/rest-api/sealed-survey/${bobs.campaign}/`, 'Invalid hyperlink - Object does not exist.');
    const notStarted = await campaignOn(alice, 0);
    await refused(`/rest-api/sealed-survey/${notStarted.campaign}/`, 'Invalid hyperlink - Object does not exist.');
    const [section] = (await call(t.app, alice.auth, 'GET', `/rest-api/section-template/?survey_id=${survey}`)).data.results;
    const edit = await call(t.app, alice.auth, 'PATCH', `/rest-api/section-template/${section.id}/`, { question: 'Changed since' });
    assert.equal(edit.statusCode, 202, edit.body);
    await refused(sealed, 'The survey template this sealed survey was copied from was changed since; link the survey template.');
    const other = await campaignOn(alice, 1);
    const gone = await call(t.app, alice.auth, 'DELETE', `/rest-api/survey-template/${other.survey}/`);
    assert.equal(gone.statusCode, 204, gone.body);
    await refused(`/rest-api/sealed-survey/${other.campaign}/`, 'The survey template this sealed survey was copied from was deleted; link a survey template.');
    assert.equal(await db.$count(calendarSettings), before);
  });

  test("an alarm keeps its survey as Newfies' does (a template or a sealed survey's link); another user's is refused and nothing stored", async () => {
    const { event, alarm } = await appointment(alice);
    assert.equal(alarm.survey, null);
    const survey = await makeSurvey(db, alice.id);
    const withSurvey = await post(alice, 'alarm', { event: event.url, alarm_phonenumber: '+15550102', survey: `/rest-api/survey-template/${survey}/` });
    assert.equal(withSurvey.survey, `http://localhost:80/rest-api/survey-template/${survey}/`);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/alarm/${withSurvey.id}/`);
    assert.equal(read.data.survey, withSurvey.survey);
    // A sealed survey's link, as Newfies' curl writes it, is kept as the template it was sealed from.
    const sealedOn = await makeSurvey(db, alice.id);
    const started = await call(t.app, alice.auth, 'POST', '/rest-api/campaigns/', {
      name: unique('c'),
      aleg_gateway: (await makeGateway(db)).id,
      object_id: sealedOn,
      phonebook: [await makePhonebook(db, alice.id, ['+12035550101'])],
      status: 1,
    });
    assert.equal(started.statusCode, 201, started.body);
    const patched = await call(t.app, alice.auth, 'PATCH', `/rest-api/alarm/${alarm.id}/`, { survey: `/rest-api/sealed-survey/${started.data.id}/` });
    assert.equal(patched.statusCode, 202, patched.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/alarm/${alarm.id}/`)).data.survey, `http://localhost:80/rest-api/survey-template/${sealedOn}/`);
    const before = await db.$count(alarms);
    const bobs = await makeSurvey(db, bob.id);
    const refused = await call(t.app, alice.auth, 'POST', '/rest-api/alarm/', { event: event.id, alarm_phonenumber: '+15550103', survey: bobs });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(Object.keys(refused.data), ['survey']);
    assert.equal(await db.$count(alarms), before);
    const unchanged = await call(t.app, alice.auth, 'PATCH', `/rest-api/alarm/${withSurvey.id}/`, { survey: bobs });
    assert.equal(unchanged.statusCode, 400, unchanged.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/alarm/${withSurvey.id}/`)).data.survey, withSurvey.survey);
  });

  test('an event recurs by a rule of the caller; PATCH answers 202 and changes the record', async () => {
    const { event, alarm } = await appointment(alice);
    const rule = await post(alice, 'rule', { name: 'weekly', frequency: 'WEEKLY', params: 'count:4; interval:1' });
    assert.equal(rule.params, 'count:4;interval:1');
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/event/${event.id}/`, { rule: rule.url, end_recurring_period: '2027-01-31 00:00:00', data: { cost: '40 euro' } });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const read = (await call(t.app, alice.auth, 'GET', `/rest-api/event/${event.id}/`)).data;
    assert.equal(read.rule, rule.url);
    assert.deepEqual(read.data, { cost: '40 euro' });
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/alarm/${alarm.id}/`, { method: 3, alarm_email: 'pat@example.com', maxretry: 2 });
    assert.equal(put.statusCode, 202, put.body);
    const after = (await call(t.app, alice.auth, 'GET', `/rest-api/alarm/${alarm.id}/`)).data;
    assert.equal(after.method, 3);
    assert.equal(after.alarm_email, 'pat@example.com');
    assert.equal(after.maxretry, 2);
    const backwards = await call(t.app, alice.auth, 'PATCH', `/rest-api/event/${event.id}/`, { end: '2026-12-09 00:00:00' });
    assert.equal(backwards.statusCode, 400, backwards.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/event/${event.id}/`)).data.end, event.end);
  });

  test('a calendar user profile is read and updated, not created or deleted there; a password is not kept', async () => {
    const person = await post(alice, 'calendar-user', { username: unique('cu'), password: 'secret', email: 'pat@example.com', first_name: 'Pat' });
    assert.equal(JSON.stringify(person).includes('secret'), false);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/calendar-user-profile/${person.id}/`, { accountcode: '353652', phone_no: '+15550123', country: 'US' });
    assert.equal(patch.statusCode, 202, patch.body);
    const profile = (await call(t.app, alice.auth, 'GET', `/rest-api/calendar-user-profile/${person.id}/`)).data;
    assert.equal(profile.accountcode, '353652');
    assert.equal(profile.phone_no, '+15550123');
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/calendar-user-profile/', { user: person.id })).statusCode, 405);
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/calendar-user-profile/${person.id}/`)).statusCode, 405);
    const twice = await call(t.app, alice.auth, 'POST', '/rest-api/calendar-user/', { username: person.username });
    assert.equal(twice.statusCode, 400, twice.body);
  });

  test("another user's calendar setting, calendar user, calendar, rule, event, alarm and alarm-request are 404, and cannot be linked to", async () => {
    const theirs = await appointment(bob);
    const rule = await post(bob, 'rule', { name: 'weekly', frequency: 'WEEKLY' });
    // The engine writes alarm-requests (the route is read-only): one of Bob's, as a failed attempt.
    const [request] = await db
      .insert(alarmRequests)
      .values({ user_id: bob.id, alarm_id: theirs.alarm.id, date: new Date().toISOString(), status: 3, detail: 'no answer' })
      .returning();
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/alarm-request/${request.id}/`)).statusCode, 200);
    const cases: [string, { id: number }][] = [
      ['calendar-setting', theirs.setting],
      ['calendar-user', theirs.person],
      ['calendar-user-profile', theirs.person],
      ['calendar', theirs.calendar],
      ['rule', rule],
      ['event', theirs.event],
      ['alarm', theirs.alarm],
      ['alarm-request', request],
    ];
    for (const [resource, row] of cases) {
      const list = await call(t.app, alice.auth, 'GET', `/rest-api/${resource}/?page_size=1000`);
      assert.ok(!list.data.results.some((r: { id: number }) => r.id === row.id), `${resource} listed`);
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        if (resource === 'calendar-user-profile' && method === 'DELETE') continue;
        if (resource === 'alarm-request' && method !== 'GET') continue; // read-only: 405 whoever asks
        const res = await call(t.app, alice.auth, method, `/rest-api/${resource}/${row.id}/`, method === 'PATCH' ? { name: 'x' } : undefined);
        assert.equal(res.statusCode, 404, `${method} ${resource}: ${res.body}`);
      }
    }
    const filtered = await call(t.app, alice.auth, 'GET', `/rest-api/alarm-request/?alarm=${theirs.alarm.id}`);
    assert.equal(filtered.data.count, 0, filtered.body);
    const linked = await call(t.app, alice.auth, 'POST', '/rest-api/event/', { title: 'x', start: '2026-12-10 10:00', end: '2026-12-10 11:00', calendar: theirs.calendar.id });
    assert.deepEqual(linked.data, { calendar: ['Invalid hyperlink - Object does not exist.'] });
    const ruled = await call(t.app, alice.auth, 'PATCH', `/rest-api/event/${(await appointment(alice)).event.id}/`, { rule: rule.url });
    assert.deepEqual(ruled.data, { rule: ['Invalid hyperlink - Object does not exist.'] });
    const alarm = await call(t.app, alice.auth, 'POST', '/rest-api/alarm/', { event: theirs.event.url, alarm_phonenumber: '+15550101' });
    assert.deepEqual(alarm.data, { event: ['Invalid hyperlink - Object does not exist.'] });
    const template = await post(bob, 'sms-template', { label: 'b', template_key: unique('k'), sms_text: 'x' });
    const mine = await appointment(alice);
    const foreignTemplate = await call(t.app, alice.auth, 'PATCH', `/rest-api/alarm/${mine.alarm.id}/`, { sms_template: template.url });
    assert.deepEqual(foreignTemplate.data, { sms_template: ['Invalid hyperlink - Object does not exist.'] });
    // Bob's rows are intact, and an admin sees them.
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/alarm/${theirs.alarm.id}/`)).statusCode, 200);
  });

  test('an admin adding an alarm to a user\'s event makes it that user\'s', async () => {
    const theirs = await appointment(bob);
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/alarm/', { event: theirs.event.id, alarm_phonenumber: '+15550102', method: 2 });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((await call(t.app, bob.auth, 'GET', `/rest-api/alarm/${res.data.id}/`)).statusCode, 200);
  });

  test('alarm-request is read-only; DELETE of an event takes its alarms', async () => {
    const { event, alarm } = await appointment(alice);
    assert.equal((await call(t.app, alice.auth, 'POST', '/rest-api/alarm-request/', { alarm: alarm.id })).statusCode, 405);
    const list = await call(t.app, alice.auth, 'GET', `/rest-api/alarm-request/?alarm=${alarm.id}`);
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.data.count, 0);
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/event/${event.id}/`)).statusCode, 204);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/alarm/${alarm.id}/`)).statusCode, 404);
  });

  test('the SMS gateway and gateway of a setting may be any existing one; a missing one is "does not exist"', async () => {
    const sms = await makeSmsGateway(db);
    const ok = await post(alice, 'calendar-setting', { label: 's', sms_gateway: `/rest-api/sms-gateway/${sms.id}/` });
    assert.equal(idOf(ok.sms_gateway), sms.id);
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/calendar-setting/', { label: 's', aleg_gateway: 999999 });
    assert.deepEqual(missing.data, { aleg_gateway: ['Invalid hyperlink - Object does not exist.'] });
  });

  test('every route answers 401 without credentials', async () => {
    for (const name of ['calendar-setting', 'calendar-user', 'calendar-user-profile', 'calendar', 'rule', 'event', 'alarm', 'alarm-request']) {
      assert.equal((await call(t.app, undefined, 'GET', `/rest-api/${name}/`)).statusCode, 401, name);
    }
  });
});
