/**
 * The console's management pages in a real browser (issue 15): users and payments, SMS gateways
 * and SMS campaigns with their delivery rates, webhooks with their secret and deliveries, API
 * tokens, and what an ordinary user is not shown. Same harness as console.test.ts (Debian's
 * Chromium through playwright-core, the real server as a process on a fresh DATA_DIR or a fresh
 * PostgreSQL database); screenshots under test-output/screenshots/ (look at them).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { request } from '../cli-process.ts';
import { basic, dbLabel } from '../helpers.ts';
import { readmeSignatureCheck } from '../readme.ts';
import { browserHarness, PHONE, refused, startPauseResumeAbort } from './harness.ts';

const admin = basic('admin', 'admin-pw');
const carol = basic('carol', 'carol-pw');
const numbers = ['+15550300001', '+15550300002', '+15550300003', '+15550300004'];

/** A loopback endpoint for the webhook: it records each request (headers and raw body) and answers 200 "ok". */
function receiver() {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok, received');
    });
  });
  return { srv, got };
}

/** The README's signature check, as an integrator copies it: the secret the console shows once must verify with it. */
const signatureValid = await readmeSignatureCheck();

describe(`the console's management pages in Chromium (${dbLabel})`, () => {
  const ui = browserHarness({ name: 'admin', env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, shotPrefix: 'admin-' });
  const { create, newPage, shot, signIn } = ui;
  const hook = receiver();
  after(() => hook.srv.close());

  before(async () => {
    await new Promise<void>((resolve) => hook.srv.listen(0, '127.0.0.1', resolve));
    await create(admin, 'accounts', { username: 'dave', password: 'dave-pw' });
    const daves = await create(basic('dave', 'dave-pw'), 'webhook', { url: 'http://127.0.0.1:9/dave', description: 'Dave’s own hook' });
    assert.ok(daves.secret);
  });

  test('an admin creates a user with the form, adds a payment, and sees the balance change', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'admin', 'admin-pw');
      const menu = page.getByRole('navigation', { name: 'Main' });
      await menu.getByRole('link', { name: 'Users', exact: true }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'New user' }).click();
      // A taken username: the API's message beside the field.
      await page.getByLabel('Username').fill('dave');
      await page.getByLabel('Password', { exact: true }).fill('x-pw');
      await page.getByRole('button', { name: 'Create user' }).click();
      await refused(page, page.locator('.field-invalid .field-error').first());
      assert.equal(await page.getByLabel('Username').getAttribute('aria-invalid'), 'true');
      await shot(page, 'user-form-error');

      await page.getByLabel('Username').fill('carol');
      await page.getByLabel('Password', { exact: true }).fill('carol-pw');
      await page.getByLabel('First name').fill('Carol');
      await page.getByLabel('Opening balance').fill('1');
      await page.getByLabel('SMS rate').fill('0.05');
      await page.getByLabel('Low-balance threshold').fill('0.5');
      await page.getByRole('button', { name: 'Create user' }).click();
      const row = page.locator('tr[data-username="carol"]');
      await row.waitFor();
      assert.match(await row.getByTestId('balance').innerText(), /^1\.00$/);
      await shot(page, 'users');

      // The account's page: add a payment from there.
      await row.getByRole('link', { name: 'carol' }).click();
      await page.getByRole('heading', { name: 'Edit carol' }).waitFor();
      assert.equal(await page.getByLabel('Active').isChecked(), true);
      await page.getByRole('link', { name: 'Add a payment' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      assert.equal(await page.getByLabel('User').inputValue(), String((await request(ui.server, 'GET', '/rest-api/accounts/?page_size=100', admin)).body.results.find((a: any) => a.username === 'carol').id));
      await page.getByLabel('Amount').fill('24.5');
      await page.getByLabel('Description').fill('Top-up by card');
      await page.getByRole('button', { name: 'Add payment' }).click();
      await page.getByRole('status').filter({ hasText: '24.50 added to carol’s balance.' }).waitFor();
      await page.getByTestId('chosen-balance').filter({ hasText: '25.50' }).waitFor();
      await page.getByRole('cell', { name: 'Top-up by card' }).waitFor();
      await shot(page, 'payments');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
      // The cached page shows first, then the refetch (the payment made it stale).
      await page.locator('tr[data-username="carol"]').getByTestId('balance').filter({ hasText: /^25\.50$/ }).waitFor();
      const api = await request(ui.server, 'GET', '/rest-api/accounts/?page_size=100', admin);
      assert.equal(api.body.results.find((a: any) => a.username === 'carol').balance, 25.5);
    } finally {
      await context.close();
    }
  });

  test('an admin creates a simulator SMS gateway with the settings form; a bad JSON setting is refused before sending', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'admin', 'admin-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SMS gateways', exact: true }).click();
      await page.getByRole('heading', { name: 'No SMS gateway yet' }).waitFor();
      await page.getByRole('link', { name: 'New SMS gateway' }).click();
      await page.getByLabel('Name').fill('Simulated SMS');
      // Another driver: its settings are JSON, checked in the page.
      await page.getByLabel('Driver').selectOption('http');
      await page.getByLabel('Settings (JSON)').fill('{"url": ');
      await page.getByRole('button', { name: 'Create SMS gateway' }).click();
      await refused(page, page.locator('.field-error').filter({ hasText: 'Not valid JSON' }));
      await shot(page, 'sms-gateway-json-error');
      await page.getByLabel('Driver').selectOption('simulator');
      await page.getByLabel('Delivery rate').fill('0.5');
      await page.getByLabel('Failure rate').fill('0.5');
      await page.getByLabel('Seed').fill('7');
      await shot(page, 'sms-gateway-form');
      await page.getByRole('button', { name: 'Create SMS gateway' }).click();
      await page.getByRole('link', { name: 'Simulated SMS' }).waitFor();
      await shot(page, 'sms-gateways');
      const list = await request(ui.server, 'GET', '/rest-api/sms-gateway/', admin);
      assert.deepEqual(list.body.results[0].settings, { delivery_rate: 0.5, failure_rate: 0.5, seed: 7 });
    } finally {
      await context.close();
    }
  });

  let secret = '';
  let webhookId = 0;
  test('a user creates a webhook to a loopback receiver and is shown its secret once', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
      await page.getByRole('heading', { name: 'No webhook yet' }).waitFor(); // not Dave's
      await page.getByRole('link', { name: 'New webhook' }).click();
      const { port } = hook.srv.address() as AddressInfo;
      await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${port}/hook`);
      await page.getByLabel('Patterns').fill('sms.*');
      await page.getByRole('checkbox', { name: 'campaign.started' }).check();
      assert.equal(await page.getByRole('checkbox', { name: 'In order' }).isChecked(), true, 'in order by default');
      // Events per delivery: a bad value is refused beside its field, and nothing is made.
      const perDelivery = page.getByLabel('Events per delivery');
      assert.equal(await perDelivery.inputValue(), '1');
      await perDelivery.fill('0');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.getByText('Ensure this value is greater than or equal to 1.').waitFor();
      assert.equal((await request(ui.server, 'GET', '/rest-api/webhook/', carol)).body.count, 0, 'a refused webhook is not made');
      await perDelivery.fill('1');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const box = page.getByRole('alert', { name: 'The webhook\'s signing secret' });
      await box.waitFor();
      secret = await page.getByTestId('secret').inputValue();
      assert.ok(secret.length >= 20, secret);
      await shot(page, 'webhook-secret');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      webhookId = Number(/\/webhooks\/(\d+)$/.exec(page.url())?.[1]);
      assert.ok(webhookId > 0, page.url());
      // Read back: the secret is not in the record.
      const read = await request(ui.server, 'GET', `/rest-api/webhook/${webhookId}/`, carol);
      assert.equal(read.body.secret, undefined);
      assert.deepEqual(read.body.events, ['campaign.started', 'sms.*']);
      assert.equal(read.body.ordered, true);
      assert.equal(read.body.batch_size, 1);
    } finally {
      await context.close();
    }
  });

  test('a user makes an SMS campaign with the form, starts it, and sees the delivery rates live; the webhook lists its deliveries', async () => {
    const book = await create(carol, 'phonebook', { name: 'Carol book' });
    for (const contact of numbers) await create(carol, 'contact', { phonebook: book.url, contact, full_name: `Customer ${contact}` });
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'SMS campaigns', exact: true }).click();
      await page.getByRole('heading', { name: 'No SMS campaign yet' }).waitFor();
      await shot(page, 'sms-campaigns-empty');
      await page.getByRole('link', { name: 'New SMS campaign' }).click();
      // Submitted once its choices are in, as a person sees the form: submitted as it appeared,
      // its refusal never came, twice in full runs (refused() now says what the page did).
      await page.getByRole('checkbox', { name: 'Carol book' }).waitFor();
      await page.getByRole('button', { name: 'Create SMS campaign' }).click();
      await refused(page);
      assert.equal(await page.getByLabel('Message', { exact: true }).getAttribute('aria-invalid'), 'true');
      await shot(page, 'sms-campaign-form-errors');
      await page.getByLabel('Name', { exact: true }).fill('Spring reminder');
      await page.getByRole('checkbox', { name: 'Carol book' }).check();
      await page.getByLabel('Message', { exact: true }).fill('Hello {full_name}, your appointment is tomorrow.');
      await page.getByLabel('SMS gateway').selectOption({ label: 'Simulated SMS' });
      await page.getByLabel('Messages per minute').fill('600');
      await page.getByRole('checkbox', { name: 'End when every contact is done' }).check();
      await page.getByRole('button', { name: 'Create SMS campaign' }).click();
      await page.getByRole('heading', { name: 'Spring reminder', level: 1 }).waitFor();
      assert.equal(await page.getByTestId('status').innerText(), 'Paused');
      await page.getByText('No message yet').waitFor();
      await page.getByRole('button', { name: 'Start' }).click();
      // Live: the rates fill in as the engine sends (no reload: the marker survives).
      await page.getByTestId('rate-sent').filter({ hasText: /^4$/ }).waitFor({ timeout: 60_000 });
      await page.getByTestId('status').filter({ hasText: 'Ended' }).waitFor({ timeout: 60_000 });
      const delivered = await page.getByTestId('rate-delivered').innerText();
      const failed = await page.getByTestId('rate-failed').innerText();
      const count = (s: string) => Number(/^(\d+) \(/.exec(s)?.[1]);
      assert.equal(count(delivered) + count(failed), 4, `${delivered} / ${failed}`);
      assert.match(delivered, /^\d+ \(\d+(\.\d)?\s?%\)$/);
      await page.getByRole('cell', { name: numbers[0] }).waitFor();
      assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 42);
      const api = await request(ui.server, 'GET', '/rest-api/sms-campaigns/', carol);
      assert.equal(api.body.results[0].progress.delivered, count(delivered));
      await shot(page, 'sms-campaign-page');

      // The messages filtered by status.
      await page.getByLabel('Status').selectOption('delivered');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('section[aria-labelledby="messages-title"] tbody tr').length === n, count(delivered));

      const phone = await newPage(PHONE);
      try {
        await signIn(phone.page, 'carol', 'carol-pw');
        await phone.page.goto(`${ui.server.base}${new URL(page.url()).pathname}`);
        await phone.page.getByTestId('rate-sent').filter({ hasText: /^4$/ }).waitFor();
        await shot(phone.page, 'sms-campaign-page-phone');
      } finally {
        await phone.context.close();
      }

      // The webhook's deliveries: each event POSTed, signed with the secret shown once.
      await page.goto(`${ui.server.base}/webhooks/${webhookId}`);
      const table = page.getByTestId('deliveries');
      await table.getByText('campaign.started').waitFor({ timeout: 30_000 });
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="deliveries"] tbody tr').length >= 5, undefined, { timeout: 30_000 });
      await table.getByText('delivered').first().waitFor({ timeout: 30_000 });
      await table.getByText('ok, received').first().waitFor({ timeout: 30_000 });
      assert.ok(hook.got.length >= 5, `received ${hook.got.length}`);
      for (const r of hook.got) assert.ok(signatureValid(secret, r.body, String(r.headers['dialer-signature'])), JSON.stringify(r.headers));
      await shot(page, 'webhook-deliveries');
      const before = hook.got.length;
      await table.getByRole('button', { name: /^Redeliver campaign\.started/ }).click();
      await waitFor(() => hook.got.length > before, 'the redelivery to arrive');
      assert.equal(JSON.parse(hook.got.at(-1)?.body ?? '{}').type, 'campaign.started');
    } finally {
      await context.close();
    }
  });

  test('rotating a webhook secret asks first, then shows the new secret once; later deliveries are signed with it', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.goto(`${ui.server.base}/webhooks/${webhookId}`);
      await page.getByRole('button', { name: 'Rotate the secret…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
      await dialog.waitFor();
      await shot(page, 'webhook-rotate-confirm');
      await dialog.getByRole('button', { name: 'Make a new secret' }).click();
      await page.getByRole('alert', { name: 'The new signing secret' }).waitFor();
      const fresh = await page.getByTestId('secret').inputValue();
      assert.notEqual(fresh, secret);
      const before = hook.got.length;
      await page.getByRole('button', { name: /^Redeliver/ }).first().click();
      await waitFor(() => hook.got.length > before, 'the redelivery to arrive');
      const last = hook.got.at(-1) as { headers: http.IncomingHttpHeaders; body: string };
      assert.ok(signatureValid(fresh, last.body, String(last.headers['dialer-signature'])));
      // Edit: switch it off.
      await page.getByRole('checkbox', { name: 'Active' }).uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      assert.equal((await request(ui.server, 'GET', `/rest-api/webhook/${webhookId}/`, carol)).body.active, false);
    } finally {
      await context.close();
    }
  });

  test('a user creates an API token (key shown once) and revokes it behind a confirmation; the key then gets 401', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens', exact: true }).click();
      await page.getByRole('heading', { name: 'No token yet' }).waitFor();
      await page.getByRole('button', { name: 'Create a token' }).click();
      await page.getByRole('alert', { name: 'The new token\'s key' }).waitFor();
      const key = await page.getByTestId('secret').inputValue();
      await shot(page, 'token-key');
      const withKey = (k: string) => fetch(`${ui.server.base}/rest-api/users/`, { headers: { authorization: `Token ${k}` } });
      assert.equal((await withKey(key)).status, 200);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      const prefix = (await page.locator('td.mono').first().innerText()).replace(/…$/, '');
      assert.ok(prefix.length > 0 && key.startsWith(prefix), `${prefix} / ${key}`);
      await shot(page, 'tokens');
      await page.getByRole('button', { name: /^Revoke the token/ }).click();
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await page.keyboard.press('Escape'); // cancelled: still valid
      assert.equal((await withKey(key)).status, 200);
      await page.getByRole('button', { name: /^Revoke the token/ }).click();
      await dialog.getByRole('button', { name: 'Revoke the token' }).click();
      await page.getByRole('heading', { name: 'No token yet' }).waitFor();
      assert.equal((await withKey(key)).status, 401);
    } finally {
      await context.close();
    }
  });

  test('an SMS campaign is started, paused, resumed, and aborted behind a confirmation (Escape cancels)', async () => {
    const gateway = (await request(ui.server, 'GET', '/rest-api/sms-gateway/', carol)).body.results[0].url;
    const book = (await request(ui.server, 'GET', '/rest-api/phonebook/', carol)).body.results[0].url;
    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const later = await create(carol, 'sms-campaigns', { name: 'Tomorrow reminder', sms_gateway: gateway, phonebook: [book], text_message: 'See you', startingdate: tomorrow });
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.goto(`${ui.server.base}/sms-campaigns/${later.id}`);
      await startPauseResumeAbort(page, 'Tomorrow reminder', 'Paused', () => shot(page, 'sms-campaign-abort-confirm'));
      assert.equal((await request(ui.server, 'GET', `/rest-api/sms-campaigns/${later.id}/`, carol)).body.status, 3);
    } finally {
      await context.close();
    }
  });

  test('"Send again" on an SMS campaign resends to the subscribers whose message failed; an empty choice is refused beside it', async () => {
    const failing = await create(admin, 'sms-gateway', { name: 'Failing texts', settings: { delivery_rate: 0, failure_rate: 1 } });
    const book = (await request(ui.server, 'GET', '/rest-api/phonebook/', carol)).body.results[0].url;
    const c = await create(carol, 'sms-campaigns', { name: 'Undelivered reminder', sms_gateway: failing.url, phonebook: [book], text_message: 'Hello', frequency: 600 });
    const messages = async () => (await request(ui.server, 'GET', `/rest-api/sms-message/?sms_campaign_id=${c.id}`, carol)).body.results as { status: string }[];
    const { context, page } = await newPage();
    try {
      await signIn(page, 'carol', 'carol-pw');
      await page.goto(`${ui.server.base}/sms-campaigns/${c.id}`);
      await page.getByRole('button', { name: 'Start' }).click();
      await waitFor(async () => (await messages()).filter((m) => m.status === 'failed').length === numbers.length, 'every message failed');
      const form = page.getByRole('form', { name: 'Send again' });
      await form.getByRole('group', { name: 'Ended as' }).getByRole('checkbox', { name: 'Failed' }).uncheck();
      await form.getByRole('button', { name: 'Put them back in the queue' }).click();
      await refused(page, form.getByRole('group', { name: 'Ended as' }).locator('.field-error').filter({ hasText: 'may not be empty' }));
      assert.equal((await messages()).length, numbers.length, 'a refused request sends nothing');

      // Sent, and their last message failed: every one, sent the text again.
      await form.getByRole('group', { name: 'Ended as' }).getByRole('checkbox', { name: 'Sent' }).check();
      await form.getByRole('group', { name: 'Last message' }).getByRole('checkbox', { name: 'Failed' }).check();
      await form.getByRole('button', { name: 'Put them back in the queue' }).click();
      await form.getByRole('status').filter({ hasText: `${numbers.length} subscribers back in the queue.` }).waitFor();
      await shot(page, 'sms-campaign-send-again');
      await waitFor(async () => (await messages()).length === 2 * numbers.length, 'each number sent the text a second time');
    } finally {
      await context.close();
    }
  });

  test('an admin creates a voice gateway with the simulator form, switches it off, and deactivates a user (whose password is then refused)', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'admin', 'admin-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Gateways', exact: true }).click();
      await page.getByRole('link', { name: 'New gateway' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Simulated carrier');
      await page.getByLabel('Calls at once').fill('5');
      await page.getByLabel('Answer rate', { exact: true }).fill('1');
      await page.getByLabel('Ringing (seconds, min–max)').fill('2, 4');
      await page.getByLabel('Time scale').fill('60');
      await page.getByRole('button', { name: 'Create gateway' }).click();
      await page.getByRole('link', { name: 'Simulated carrier' }).click();
      await page.getByRole('heading', { name: 'Edit Simulated carrier' }).waitFor();
      assert.equal(await page.getByLabel('Ringing (seconds, min–max)').inputValue(), '2, 4');
      await page.getByLabel('Status').selectOption({ label: 'Inactive: campaigns using it wait' });
      await shot(page, 'gateway-edit');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('cell', { name: 'Inactive' }).waitFor();
      await shot(page, 'gateways');
      const g = (await request(ui.server, 'GET', '/rest-api/gateway/', admin)).body.results[0];
      assert.deepEqual([g.status, g.maximum_call, g.settings], [0, 5, { answer_rate: 1, ring_seconds: [2, 4], time_scale: 60 }]);

      await page.goto(`${ui.server.base}/users`);
      await page.locator('tr[data-username="dave"]').getByRole('link', { name: 'dave' }).click();
      await page.getByRole('heading', { name: 'Edit dave' }).waitFor();
      await page.getByLabel('Active').uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('tr[data-username="dave"]').getByText('Deactivated').waitFor();
      assert.equal((await request(ui.server, 'GET', '/rest-api/users/', basic('dave', 'dave-pw'))).status, 401);
      await page.locator('tr[data-username="dave"]').getByRole('link', { name: 'dave' }).click();
      await page.getByLabel('Active').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('tr[data-username="dave"]').getByText('Active', { exact: true }).waitFor();
      assert.equal((await request(ui.server, 'GET', '/rest-api/users/', basic('dave', 'dave-pw'))).status, 200);
    } finally {
      await context.close();
    }
  });

  test('an ordinary user sees no Users or Payments page, and not another user\'s webhooks; gateways by name only', async () => {
    const { context, page } = await newPage(PHONE);
    try {
      await signIn(page, 'dave', 'dave-pw');
      await page.getByRole('button', { name: 'Menu' }).click();
      const menu = page.getByRole('navigation', { name: 'Main' });
      await menu.getByRole('link', { name: 'Webhooks', exact: true }).waitFor();
      assert.equal(await menu.getByRole('link', { name: 'Users', exact: true }).count(), 0);
      assert.equal(await menu.getByRole('link', { name: 'Payments', exact: true }).count(), 0);
      await shot(page, 'user-menu-phone');
      await menu.getByRole('link', { name: 'Webhooks', exact: true }).click();
      await page.getByRole('link', { name: 'http://127.0.0.1:9/dave' }).waitFor();
      assert.equal(await page.locator('tbody tr').count(), 1); // Dave's only, not Carol's
      await page.goto(`${ui.server.base}/webhooks/${webhookId}`);
      await page.getByRole('heading', { name: 'Webhook not found' }).waitFor();
      await page.goto(`${ui.server.base}/users`);
      await page.getByRole('heading', { name: 'No such page' }).waitFor();
      await page.goto(`${ui.server.base}/sms-gateways`);
      await page.getByRole('cell', { name: 'Simulated SMS' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'New SMS gateway' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Simulated SMS' }).count(), 0);
      await page.goto(`${ui.server.base}/sms-gateways/new`);
      await page.getByRole('heading', { name: 'Only administrators configure SMS gateways' }).waitFor();
      await shot(page, 'sms-gateways-user-phone');
      // Dave deletes his own webhook, behind a confirmation.
      await page.goto(`${ui.server.base}/webhooks`);
      await page.getByRole('link', { name: 'http://127.0.0.1:9/dave' }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      await shot(page, 'webhook-page-phone');
      await page.getByRole('button', { name: 'Delete this webhook…' }).click();
      await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete the webhook' }).click();
      await page.getByRole('heading', { name: 'No webhook yet' }).waitFor();
      await shot(page, 'webhooks-empty-phone');
      assert.equal((await request(ui.server, 'GET', '/rest-api/webhook/', basic('dave', 'dave-pw'))).body.count, 0);
    } finally {
      await context.close();
    }
  });
});

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
