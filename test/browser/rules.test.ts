/**
 * The calling rules of issue 16 in the console, in a real browser (same harness as
 * console.test.ts: Debian's Chromium, the real server as a process on a fresh DATA_DIR or a fresh
 * PostgreSQL database): an account's contact caps, legal calling hours, country and recording
 * retention; a campaign's retries by cause and whole-call recording; a section's callback; the
 * campaign page's "Call again" (recycling). Each is set through the page and read back through
 * the API; a bad value shows the API's message beside its field and changes nothing.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { request } from '../cli-process.ts';
import { basic, dbLabel, eventually, idOf } from '../helpers.ts';
import { browserHarness, refused } from './harness.ts';

const admin = basic('admin', 'admin-pw');

/** A subscriber as /rest-api/subscriber-list/ shows it (the fields these tests read). */
interface Subscriber {
  status: number;
  reason: string;
  count_attempt: number;
  last_attempt: string | null;
  scheduled_at: string | null;
}
const erin = basic('erin', 'erin-pw');

describe(`the calling rules in the console (${dbLabel})`, () => {
  const ui = browserHarness({ name: 'rules', shotPrefix: 'rules-' });
  const { create, newPage, shot, signIn } = ui;
  const get = async (auth: string, path: string) => {
    const res = await request(ui.server, 'GET', path, auth);
    assert.equal(res.status, 200, `GET ${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  /** Waits (up to 20 s) for `check` to hold. */
  const until = async (check: () => Promise<boolean>, what: string) => assert.ok(await eventually(check, 20_000), `timed out waiting: ${what}`);

  let erinId: number;
  let campaignId: number;
  let surveyId: number;
  let sectionId: number;

  before(async () => {
    erinId = (await create(admin, 'accounts', { username: 'erin', password: 'erin-pw', balance: '10' })).id;
    const gateway = await create(admin, 'gateway', { name: 'Simulated carrier', driver: 'simulator', settings: {} });
    const book = await create(erin, 'phonebook', { name: 'Erin book' });
    const survey = await create(erin, 'survey-template', { name: 'Erin survey' });
    surveyId = survey.id;
    sectionId = (await create(erin, 'section-template', { survey: survey.url, type: 1, question: 'Welcome', script: 'Welcome.' })).id;
    campaignId = (await create(erin, 'campaigns', { name: 'Erin campaign', phonebook: [book.url], object_id: idOf(survey.url), aleg_gateway: gateway.url })).id;
  });

  test("an admin sets a user's contact caps, calling hours, country and retention; a bad window is refused beside its field", async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'admin', 'admin-pw');
      await page.goto(`${ui.server.base}/users/${erinId}`);
      await page.getByRole('heading', { name: 'Edit erin' }).waitFor();
      const hours = page.getByRole('group', { name: 'Legal calling hours' });

      // An end before the start: the API's message under the hours, nothing saved.
      await hours.getByLabel('From').fill('21:00');
      await hours.getByLabel('Until').fill('08:00');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('alert').waitFor();
      await refused(page, hours.locator('.field-error').filter({ hasText: 'end must be after start' }));
      await shot(page, 'account-hours-error');
      assert.equal((await get(admin, `/rest-api/accounts/${erinId}/`)).calling_hours, null);

      // Attempts without the days they are counted in: refused under the caps.
      const caps = page.getByRole('group', { name: 'Contact caps' });
      await caps.getByLabel('Attempts', { exact: true }).fill('5');
      await hours.getByLabel('From').fill('08:00');
      await hours.getByLabel('Until').fill('21:00');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await refused(page, caps.locator('.field-error').filter({ hasText: 'attempts and window_days go together' }));
      assert.equal(await hours.locator('.field-error').count(), 0, 'the hours were edited: their old message is gone');
      const unchanged = await get(admin, `/rest-api/accounts/${erinId}/`);
      assert.deepEqual([unchanged.contact_caps, unchanged.calling_hours], [null, null], 'a refused request changes nothing');

      await page.getByRole('button', { name: /Use Regulation F/ }).click();
      assert.equal(await caps.getByLabel('In days').inputValue(), '7');
      await page.getByLabel('Country of numbers without +').fill('gb');
      await page.getByLabel('Keep recordings (days)').fill('30');
      await shot(page, 'account-rules');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const saved = await get(admin, `/rest-api/accounts/${erinId}/`);
      assert.deepEqual(saved.contact_caps, { attempts: 7, window_days: 7, quiet_days: 7, daily: null });
      assert.deepEqual(saved.calling_hours, { start: '08:00', end: '21:00' });
      assert.equal(saved.default_country, 'GB');
      assert.equal(saved.recording_retention_days, 30);

      // The form shows them back; emptying every cap turns the caps off, and the rest stays.
      await page.goto(`${ui.server.base}/users/${erinId}`);
      await page.getByRole('heading', { name: 'Edit erin' }).waitFor();
      assert.equal(await caps.getByLabel('Quiet days').inputValue(), '7');
      assert.equal(await hours.getByLabel('Until').inputValue(), '21:00');
      for (const label of ['Attempts', 'In days', 'Quiet days']) await caps.getByLabel(label, { exact: true }).fill('');
      await caps.getByLabel('Attempts a day').fill('2');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const daily = await get(admin, `/rest-api/accounts/${erinId}/`);
      assert.deepEqual(daily.contact_caps, { attempts: null, window_days: null, quiet_days: null, daily: 2 });
      assert.deepEqual(daily.calling_hours, { start: '08:00', end: '21:00' });
      assert.equal(daily.recording_retention_days, 30);
    } finally {
      await context.close();
    }
  });

  test("a campaign's retries by cause and whole-call recording are set with its form; a rule without its wait is refused", async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'erin', 'erin-pw');
      await page.goto(`${ui.server.base}/campaigns/${campaignId}/edit`);
      await page.getByRole('heading', { name: 'Edit Erin campaign' }).waitFor();
      const rules = page.getByRole('group', { name: 'Retries by cause' });
      await rules.getByLabel('Busy: retries').fill('3');
      await rules.getByLabel('Busy: wait in seconds').fill('300');
      await rules.getByLabel('Answering machine: retries').fill('1');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await refused(page, rules.locator('.field-error').filter({ hasText: /machine/ }));
      await shot(page, 'campaign-rules-error');
      assert.equal((await get(erin, `/rest-api/campaigns/${campaignId}/`)).retry_rules, null, 'a refused request changes nothing');

      await rules.getByLabel('Answering machine: wait in seconds').fill('3600');
      await page.getByRole('checkbox', { name: 'Record whole calls' }).check();
      await shot(page, 'campaign-rules');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Erin campaign', exact: true }).waitFor();
      const saved = await get(erin, `/rest-api/campaigns/${campaignId}/`);
      assert.deepEqual(saved.retry_rules, { busy: { attempts: 3, interval: 300 }, machine: { attempts: 1, interval: 3600 } });
      assert.equal(saved.record_calls, true);

      // Shown back as saved; a PATCH of one other field leaves the rules alone; emptied, they are cleared.
      await page.goto(`${ui.server.base}/campaigns/${campaignId}/edit`);
      await page.getByRole('heading', { name: 'Edit Erin campaign' }).waitFor();
      assert.equal(await rules.getByLabel('Answering machine: wait in seconds').inputValue(), '3600');
      assert.equal(await rules.getByLabel('No answer: retries').inputValue(), '');
      assert.equal(await page.getByRole('checkbox', { name: 'Record whole calls' }).isChecked(), true);
      await page.getByLabel('Description', { exact: true }).fill('Rules kept');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Erin campaign', exact: true }).waitFor();
      assert.deepEqual((await get(erin, `/rest-api/campaigns/${campaignId}/`)).retry_rules, saved.retry_rules);

      await page.goto(`${ui.server.base}/campaigns/${campaignId}/edit`);
      await page.getByRole('heading', { name: 'Edit Erin campaign' }).waitFor();
      for (const label of ['Busy: retries', 'Busy: wait in seconds', 'Answering machine: retries', 'Answering machine: wait in seconds']) await rules.getByLabel(label).fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Erin campaign', exact: true }).waitFor();
      assert.equal((await get(erin, `/rest-api/campaigns/${campaignId}/`)).retry_rules, null);
    } finally {
      await context.close();
    }
  });

  test("a section's callback is set and cleared in the survey editor; out of range is refused beside it", async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'erin', 'erin-pw');
      await page.goto(`${ui.server.base}/surveys/${surveyId}`);
      await page.getByRole('region', { name: 'Play order' }).getByRole('button', { name: /Welcome/ }).click();
      const form = page.getByRole('form', { name: 'Section Welcome' });
      const callback = form.getByLabel('Call back after (minutes)');
      await callback.fill('50000');
      await form.getByRole('button', { name: 'Save section' }).click();
      await refused(page, form.locator('.field-invalid .field-error'));
      assert.equal(await callback.getAttribute('aria-invalid'), 'true');
      assert.equal((await get(erin, `/rest-api/section-template/${sectionId}/`)).callback_minutes, undefined);

      await callback.fill('30');
      await form.getByRole('button', { name: 'Save section' }).click();
      const section = `/rest-api/section-template/${sectionId}/`;
      await until(async () => (await get(erin, section)).callback_minutes === 30, 'callback_minutes 30 saved');
      // The editor reads the section again and shows it as saved.
      await until(async () => (await callback.inputValue()) === '30', 'the form shows 30 again');
      await shot(page, 'section-callback');

      await callback.fill('');
      await form.getByRole('button', { name: 'Save section' }).click();
      await until(async () => !('callback_minutes' in (await get(erin, section))), 'callback_minutes cleared');
    } finally {
      await context.close();
    }
  });

  /**
   * A campaign of erin's on a carrier where every call is busy, run until both its subscribers
   * (`numbers`) end FAIL (no retries), then paused: what it gets back waits where a test can see it.
   */
  async function failedCampaign(name: string, numbers: string[]) {
    // The first test left erin with legal calling hours (08:00-21:00 in each contact's zone) and a
    // daily cap; these tests must dial whatever the hour they run at, so her rules are off again.
    const off = await request(ui.server, 'PATCH', `/rest-api/accounts/${erinId}/`, admin, { calling_hours: null, contact_caps: null });
    assert.equal(off.status, 202, `rules off: ${JSON.stringify(off.body)}`);
    const busy = await create(admin, 'gateway', { name: `${name} carrier`, driver: 'simulator', settings: { answer_rate: 0, busy_rate: 1, noanswer_rate: 0, ring_seconds: [0, 0] } });
    const book = await create(erin, 'phonebook', { name: `${name} book` });
    for (const contact of numbers) await create(erin, 'contact', { phonebook: book.url, contact });
    const survey = await get(erin, `/rest-api/survey-template/${surveyId}/`);
    const c = await create(erin, 'campaigns', { name, phonebook: [book.url], object_id: idOf(survey.url), aleg_gateway: busy.url, frequency: 600 });
    const subscribers = async () => (await get(erin, `/rest-api/subscriber-list/?campaign_id=${c.id}`)) as Subscriber[];
    await setStatus(c.id, 1);
    await until(async () => (await subscribers()).filter((s) => s.status === 4).length === numbers.length, 'every subscriber FAIL');
    await setStatus(c.id, 2);
    return { id: c.id as number, subscribers };
  }

  async function setStatus(campaign: number, status: number) {
    const res = await request(ui.server, 'PATCH', `/rest-api/campaigns/${campaign}/`, erin, { status });
    assert.ok(res.status === 200 || res.status === 202, `status ${status}: ${res.status} ${JSON.stringify(res.body)}`);
  }

  test('"Call again" puts the failed subscribers of a paused campaign back in the queue; an empty choice is refused beside it', async () => {
    const c = await failedCampaign('Erin busy campaign', ['+15550400001', '+15550400002']);
    const { subscribers } = c;

    const { context, page } = await newPage();
    try {
      await signIn(page, 'erin', 'erin-pw');
      await page.goto(`${ui.server.base}/campaigns/${c.id}`);
      const form = page.getByRole('form', { name: 'Call again' });
      await form.getByRole('group', { name: 'Ended as' }).getByRole('checkbox', { name: 'Failed' }).uncheck();
      await form.getByRole('button', { name: 'Put them back in the queue' }).click();
      await refused(page, form.getByRole('group', { name: 'Ended as' }).locator('.field-error').filter({ hasText: 'may not be empty' }));
      assert.deepEqual((await subscribers()).map((s) => s.status), [4, 4], 'a refused request changes nothing');

      // Failed, but only those whose last call was answered: none.
      await form.getByRole('group', { name: 'Ended as' }).getByRole('checkbox', { name: 'Failed' }).check();
      await form.getByRole('group', { name: 'Last call' }).getByRole('checkbox', { name: 'Answered' }).check();
      await form.getByRole('button', { name: 'Put them back in the queue' }).click();
      await form.getByRole('status').filter({ hasText: '0 subscribers back in the queue.' }).waitFor();
      assert.deepEqual((await subscribers()).map((s) => s.status), [4, 4]);

      await form.getByRole('group', { name: 'Last call' }).getByRole('checkbox', { name: 'Answered' }).uncheck();
      await form.getByRole('group', { name: 'Last call' }).getByRole('checkbox', { name: 'Busy' }).check();
      await form.getByRole('button', { name: 'Put them back in the queue' }).click();
      await form.getByRole('status').filter({ hasText: '2 subscribers back in the queue.' }).waitFor();
      await shot(page, 'campaign-call-again');
      assert.deepEqual((await subscribers()).map((s) => s.status), [1, 1]);
    } finally {
      await context.close();
    }
  });
  test("a subscriber's appointment is set, cleared and kept from its campaign page; an ended one is called again at its time", async () => {
    const c = await failedCampaign('Erin appointments', ['+15550500001', '+15550500002']);
    const { context, page } = await newPage();
    try {
      await signIn(page, 'erin', 'erin-pw');
      await page.goto(`${ui.server.base}/campaigns/${c.id}`);
      const list = page.getByRole('region', { name: 'Subscribers' });
      const row = (number: string) => list.getByRole('row').filter({ hasText: number }).first();
      await row('+15550500001').getByRole('cell', { name: 'Failed' }).waitFor();
      // Why it ended, as the API says it.
      assert.equal((await c.subscribers())[0].reason, 'no attempt left (last: USER_BUSY)');
      await row('+15550500001').getByRole('cell', { name: 'no attempt left (last: USER_BUSY)' }).waitFor();
      // A status no subscriber has: the list says so; back to any.
      const status = list.getByLabel('Status');
      await status.selectOption({ label: 'Pending' });
      await list.getByText('No subscriber has this status.').waitFor();
      await status.selectOption({ label: 'Any' });

      /** `seconds` from now as a datetime-local value in the browser's zone, and the instant it names. */
      const offsetMinutes = (await page.evaluate('new Date().getTimezoneOffset()')) as number;
      const later = (seconds: number) => {
        const at = new Date(Math.floor(Date.now() / 1000 + seconds) * 1000);
        return { value: new Date(at.getTime() - offsetMinutes * 60_000).toISOString().slice(0, 19), iso: at.toISOString() };
      };
      const appointment = (number: string) => page.getByRole('form', { name: `Appointment of ${number}` });

      // The first one, ended: called again in an hour, back to pending with that appointment.
      const inAnHour = later(3600);
      await row('+15550500001').getByRole('button', { name: 'Call again +15550500001' }).click();
      await appointment('+15550500001').getByLabel('Call at').fill(inAnHour.value);
      await shot(page, 'subscriber-appointment');
      await appointment('+15550500001').getByRole('button', { name: 'Call again' }).click();
      await appointment('+15550500001').waitFor({ state: 'detached' });
      await until(async () => (await c.subscribers())[0].status === 1, 'the first subscriber pending');
      assert.equal(new Date((await c.subscribers())[0].scheduled_at as string).getTime(), new Date(inAnHour.iso).getTime());
      await row('+15550500001').getByRole('cell', { name: 'Pending' }).waitFor();

      // Its appointment emptied: due at once; set again: due in an hour.
      await row('+15550500001').getByRole('button', { name: 'Schedule +15550500001' }).click();
      assert.ok((await appointment('+15550500001').getByLabel('Call at').inputValue()).startsWith(inAnHour.value.slice(0, 16)), 'the form shows the appointment');
      await appointment('+15550500001').getByLabel('Call at').fill('');
      await appointment('+15550500001').getByRole('button', { name: 'Save appointment' }).click();
      await appointment('+15550500001').waitFor({ state: 'detached' });
      await until(async () => (await c.subscribers())[0].scheduled_at === null, 'the appointment cleared');
      await row('+15550500001').getByRole('button', { name: 'Schedule +15550500001' }).click();
      await appointment('+15550500001').getByLabel('Call at').fill(inAnHour.value);
      await appointment('+15550500001').getByRole('button', { name: 'Save appointment' }).click();
      await appointment('+15550500001').waitFor({ state: 'detached' });
      await until(async () => (await c.subscribers())[0].scheduled_at !== null, 'the appointment set again');

      // The second one, ended, called again with no time: due at once.
      await row('+15550500002').getByRole('button', { name: 'Call again +15550500002' }).click();
      await appointment('+15550500002').getByRole('button', { name: 'Call again' }).click();
      await appointment('+15550500002').waitFor({ state: 'detached' });
      await until(async () => (await c.subscribers())[1].status === 1, 'the second subscriber pending');
      assert.equal((await c.subscribers())[1].scheduled_at, null);

      // Running again, the campaign calls the second (busy: FAIL, 2 attempts) and not the first before its hour.
      await setStatus(c.id, 1);
      await until(async () => (await c.subscribers())[1].count_attempt === 2, 'the second subscriber called again');
      await row('+15550500002').getByRole('cell', { name: 'Failed' }).waitFor();
      const first = (await c.subscribers())[0];
      assert.deepEqual([first.status, first.count_attempt], [1, 1], 'not called before its appointment');

      // Moved to two seconds from now: called then, not before.
      const soon = later(2);
      await row('+15550500001').getByRole('button', { name: 'Schedule +15550500001' }).click();
      await appointment('+15550500001').getByLabel('Call at').fill(soon.value);
      await appointment('+15550500001').getByRole('button', { name: 'Save appointment' }).click();
      await appointment('+15550500001').waitFor({ state: 'detached' });
      await until(async () => (await c.subscribers())[0].count_attempt === 2, 'the first subscriber called at its appointment');
      const called = (await c.subscribers())[0];
      assert.ok(new Date(called.last_attempt as string).getTime() >= new Date(soon.iso).getTime(), `called at ${called.last_attempt}, not before ${soon.iso}`);
    } finally {
      await context.close();
    }
  });
});
