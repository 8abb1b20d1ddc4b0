/**
 * The operators' console in a real browser (issue 15): Debian's Chromium driven by
 * playwright-core against the real server started as a process (`campaign-dialer serve`, a
 * fresh DATA_DIR, or a fresh PostgreSQL database when TEST_DATABASE_URL is set) serving the
 * console built by `npm install`. Users, the gateway and the material of a campaign are made
 * through the API; everything the test asserts is done through the page. Each flow saves
 * screenshots under test-output/screenshots/ (look at them: they are the review of the layout).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { request } from '../cli-process.ts';
import { basic, dbLabel, idOf } from '../helpers.ts';
import { browserHarness, downloadedText, PHONE, refused, startPauseResumeAbort } from './harness.ts';

const admin = basic('admin', 'admin-pw');
const alice = basic('alice', 'alice-pw');
const bob = basic('bob', 'bob-pw');
const ZONE = 'America/New_York';

describe(`the console in Chromium (${dbLabel})`, () => {
  // A zone that is not UTC, so the test sees times shown in the browser's zone, not the server's.
  const ui = browserHarness({ name: 'console', context: { acceptDownloads: true, locale: 'en-US', timezoneId: ZONE } });
  const { create, newPage, shot, signIn, submitSignIn } = ui;

  /** A phonebook of `numbers` and a one-section survey (a closing message that completes), owned by `auth`. */
  async function material(auth: string, label: string, numbers: string[]) {
    const book = await create(auth, 'phonebook', { name: `${label} book` });
    for (const contact of numbers) await create(auth, 'contact', { phonebook: book.url, contact, full_name: `Customer ${contact}` });
    const survey = await create(auth, 'survey-template', { name: `${label} survey` });
    await create(auth, 'section-template', { survey: survey.url, type: 7, question: 'Thanks', script: 'Thank you, goodbye.', completed: true });
    return { book, survey };
  }

  let gatewayUrl: string;
  let alicesOwn: { id: number; name: string };
  let tomorrowsId: number;

  before(async () => {
    await create(admin, 'accounts', { username: 'alice', password: 'alice-pw', balance: '100', call_rate: '0.02' });
    await create(admin, 'accounts', { username: 'bob', password: 'bob-pw', balance: '50' });
    await create(admin, 'accounts', { username: 'dora', password: 'dora-pw', balance: '0' }); // owns nothing
    // Everyone answers and stays on the line; 60 simulated seconds per real second.
    const gateway = await create(admin, 'gateway', {
      name: 'Simulated carrier',
      driver: 'simulator',
      settings: { answer_rate: 1, machine_rate: 0, talk_seconds: [30, 60], dtmf: 'random', time_scale: 60 },
    });
    gatewayUrl = gateway.url;
    const a = await material(alice, 'Alice', ['+15550100001', '+15550100002', '+15550100003']);
    const b = await material(bob, 'Bob', ['+15550200001']);
    const campaign = (auth: string, name: string, m: typeof a) =>
      create(auth, 'campaigns', { name, phonebook: [m.book.url], object_id: idOf(m.survey.url), aleg_gateway: gatewayUrl });
    alicesOwn = await campaign(alice, 'Alice private campaign', a);
    // Starts tomorrow: once started it waits, which leaves time to pause, resume and abort it.
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const later = await create(alice, 'campaigns', {
      name: 'Alice campaign for tomorrow',
      phonebook: [a.book.url],
      object_id: idOf(a.survey.url),
      aleg_gateway: gatewayUrl,
      startingdate: tomorrow,
    });
    tomorrowsId = later.id;
    await campaign(bob, 'Bob private campaign', b);
  });

  test('/ serves the app, a deep link falls back to index.html, and /rest-api/nope/ is still a JSON 404', async () => {
    const html = { accept: 'text/html' };
    const home = await fetch(`${ui.server.base}/`, { headers: html });
    assert.equal(home.status, 200);
    const index = await home.text();
    assert.match(index, /<div id="root"><\/div>/);
    assert.match(index, /<script type="module"[^>]* src="\/assets\/index-[\w-]+\.js"/);
    const deep = await fetch(`${ui.server.base}/some/deep/link`, { headers: html });
    assert.equal(deep.status, 200);
    assert.equal(await deep.text(), index);
    const api = await fetch(`${ui.server.base}/rest-api/nope/`, { headers: html });
    assert.equal(api.status, 404);
    assert.match(String(api.headers.get('content-type')), /^application\/json/);
    assert.deepEqual(await api.json(), { detail: 'Not found.' });
  });

  test('sign-in: a wrong password shows an error; the right one opens the dashboard with the user named', async () => {
    const { context, page } = await newPage();
    try {
      await submitSignIn(page, 'dora', 'not-her-password');
      await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
      await shot(page, 'sign-in-wrong-password');
      // The keyboard alone: Enter in the password field signs in.
      await page.getByLabel('Password').fill('dora-pw');
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      assert.match(await page.getByTestId('current-user').innerText(), /^dora$/);
      await page.getByText('No campaign is running').waitFor();
      // Every page of the issue is in the menu, and built: none says it is not.
      const menu = page.getByRole('navigation', { name: 'Main' });
      for (const label of ['Dashboard', 'Phonebooks', 'DNC lists', 'Audio', 'Surveys', 'Campaigns', 'SMS campaigns', 'Gateways', 'SMS gateways', 'Webhooks', 'API tokens']) {
        await menu.getByRole('link', { name: new RegExp(`^${label}\\b`) }).waitFor();
      }
      assert.equal(await menu.getByText('not built yet').count(), 0);
      await shot(page, 'dashboard-empty');
      await menu.getByRole('link', { name: /^Phonebooks/ }).click();
      await page.getByRole('heading', { name: 'Phonebooks', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      await context.close();
    }
  });

  test('sign-in: a throttled username (429) is told to wait, with the time the server gives', async () => {
    // Ten failures from this address lock the username (README, "Login throttling"); the
    // browser's attempt comes from the same address.
    for (let i = 0; i < 10; i++) {
      const res = await request(ui.server, 'POST', '/rest-api/session/', undefined, { username: 'mallory', password: `guess-${i}` });
      assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    const { context, page } = await newPage();
    try {
      await submitSignIn(page, 'mallory', 'one-more-guess');
      await page.getByRole('alert').filter({ hasText: /^Too many failed attempts for this username\. Try again in \d+ minutes?\.$/ }).waitFor();
      await shot(page, 'sign-in-throttled');
    } finally {
      await context.close();
    }
  });

  test('a campaign made with the form, started, reaches END on the dashboard live; its calls export as CSV', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      // Set on this document: still there at the end proves the page never reloaded.
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
      const menu = page.getByRole('navigation', { name: 'Main' });
      await menu.getByRole('link', { name: 'Campaigns', exact: true }).click();
      await page.getByRole('link', { name: 'New campaign' }).first().click();
      await page.getByRole('heading', { name: 'New campaign' }).waitFor();

      // Sent empty: the API's messages show beside the fields they name. Sent once its choices
      // are in, as a person sees the form: submitted as it appeared, its refusal never came
      // (60 s), here once (2026-12-07, PostgreSQL) and in the SMS form before; cause not found.
      await page.getByRole('checkbox', { name: 'Alice book' }).waitFor();
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await refused(page, page.getByRole('alert'));
      const nameField = page.getByLabel('Name', { exact: true });
      assert.equal(await nameField.getAttribute('aria-invalid'), 'true');
      await refused(page);
      await shot(page, 'campaign-form-errors');

      await nameField.fill('Spring survey');
      await page.getByRole('checkbox', { name: 'Alice book' }).check();
      await page.getByLabel('Survey').selectOption({ label: 'Alice survey' });
      await page.getByLabel('Gateway', { exact: true }).selectOption({ label: 'Simulated carrier' });
      await page.getByLabel('Calls per minute').fill('60');
      await page.getByRole('checkbox', { name: 'End when every contact is done' }).check();
      await shot(page, 'campaign-form-filled');
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.getByRole('heading', { name: 'Spring survey' }).waitFor();
      const campaignUrl = page.url();
      assert.match(campaignUrl, /\/campaigns\/\d+$/);
      assert.equal(await page.getByTestId('status').innerText(), 'Not started');
      await page.getByRole('button', { name: 'Start' }).click();
      await page.getByTestId('status').filter({ hasText: /Running|Ended/ }).waitFor();

      await menu.getByRole('link', { name: 'Dashboard' }).click();
      const card = page.getByRole('article', { name: 'Campaign Spring survey' });
      await card.waitFor();
      await shot(page, 'dashboard-running');
      await card.getByTestId('status').filter({ hasText: 'Ended' }).waitFor({ timeout: 120_000 });
      await card.getByText('3 of 3 done').waitFor();
      assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42, 'the dashboard reloaded');
      await shot(page, 'dashboard-ended');

      await card.getByRole('link', { name: 'Spring survey' }).click();
      await page.getByRole('heading', { name: 'Calls', exact: true }).waitFor();
      await page.locator('table.cdrs tbody tr').nth(2).waitFor();
      await shot(page, 'campaign-page');
      // Times in the browser's zone, the UTC instant in the title.
      const time = page.locator('table.cdrs time').first();
      const instant = new Date(String(await time.getAttribute('datetime')));
      assert.equal(await time.getAttribute('title'), `${instant.toISOString().slice(0, 19).replace('T', ' ')} UTC`);
      const local = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, dateStyle: 'medium', timeStyle: 'medium' }).format(instant);
      assert.equal(await time.innerText(), local);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      const csv = await downloadedText(download);
      const lines = csv.trim().split(/\r?\n/);
      assert.equal(lines.length, 4, csv);
      assert.match(lines[0], /phone_number/, csv);
      for (const n of ['+15550100001', '+15550100002', '+15550100003']) assert.ok(lines.some((l) => l.includes(n)), `${n} not in:\n${csv}`);

      // The same at phone width: the menu folds behind a button.
      await page.setViewportSize(PHONE);
      assert.equal(await menu.count(), 0, 'the menu is folded at phone width');
      await shot(page, 'campaign-page-phone');
      await page.getByRole('button', { name: 'Menu' }).click();
      await menu.getByRole('link', { name: 'Dashboard' }).waitFor();
      await shot(page, 'menu-phone');
    } finally {
      await context.close();
    }
  });

  test('start, pause, resume, and abort only once confirmed (Escape cancels); what it waits for in plain words', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.goto(`${ui.server.base}/campaigns/${tomorrowsId}`);
      await startPauseResumeAbort(page, 'Alice campaign for tomorrow', 'Not started', () => shot(page, 'abort-confirmation'));
      const record = await request(ui.server, 'GET', `/rest-api/campaigns/${tomorrowsId}/`, alice);
      assert.equal(record.body.status, 3, JSON.stringify(record.body));
    } finally {
      await context.close();
    }
  });

  test('an SMS campaign shows on the dashboard with its messages, live', async () => {
    const smsGateway = await create(admin, 'sms-gateway', { name: 'Simulated texts', settings: { delivery_rate: 1, failure_rate: 0 } });
    const book = await create(alice, 'phonebook', { name: 'Alice texts book' });
    for (const contact of ['+15550300001', '+15550300002']) await create(alice, 'contact', { phonebook: book.url, contact });
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      // Started after the page opened: it appears, and ends, through the event stream alone.
      await create(alice, 'sms-campaigns', {
        name: 'Spring texts',
        sms_gateway: smsGateway.url,
        phonebook: [book.url],
        text_message: 'Spring offer: reply STOP to opt out.',
        status: 1,
        end_when_done: true,
      });
      const card = page.getByRole('article', { name: 'SMS campaign Spring texts' });
      await card.waitFor();
      await card.getByText('Messages sent').waitFor();
      await card.getByText('2 of 2 done').waitFor({ timeout: 60_000 });
      await shot(page, 'dashboard-sms');
    } finally {
      await context.close();
    }
  });

  test("an ordinary user never sees another user's campaign", async () => {
    const { context, page } = await newPage();
    try {
      const alices = alicesOwn;
      await signIn(page, 'bob', 'bob-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns', exact: true }).click();
      await page.getByRole('link', { name: 'Bob private campaign' }).waitFor();
      assert.equal(await page.getByRole('link', { name: alices.name }).count(), 0);
      await shot(page, 'campaigns-list-bob');
      await page.goto(`${ui.server.base}/campaigns/${alices.id}`);
      await page.getByText('Campaign not found').waitFor();
      assert.equal(await page.getByText(alices.name).count(), 0);
      await shot(page, 'campaign-of-another-user');
    } finally {
      await context.close();
    }
  });
});
