/**
 * The console's Phonebooks, DNC lists and Audio pages in a real browser (issue 15): Debian's
 * Chromium driven by playwright-core against the real server started as a process, on a fresh
 * DATA_DIR (or a fresh PostgreSQL database when TEST_DATABASE_URL is set). Users are made
 * through the API; everything asserted is done through the page, then checked through the API.
 * Screenshots go to test-output/screenshots/ (look at them).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { makeWav } from '../audio-fixtures.ts';
import { request } from '../cli-process.ts';
import { basic, dbLabel } from '../helpers.ts';
import { assertFitsPhone, browserHarness, downloadedText, PHONE, refused } from './harness.ts';

const admin = basic('admin', 'admin-pw');
const alice = basic('alice', 'alice-pw');

/** A CSV with a header (line 1), three good rows and two bad ones (lines 3 and 5). */
const CONTACTS_CSV = [
  'contact,full_name,city',
  '+15550100001,Ada Lovelace,London',
  'not-a-number,Nobody,Nowhere',
  '+15550100002,Grace Hopper,Arlington',
  '12,Too Short,Nowhere',
  '+15550100003,Alan Turing,Wilmslow',
].join('\n');

describe(`the console's phonebooks, DNC lists and audio in Chromium (${dbLabel})`, () => {
  const ui = browserHarness({ name: 'contacts', context: { acceptDownloads: true } });
  const { create, newPage, shot, signIn } = ui;
  let bookId: number;

  before(async () => {
    await create(admin, 'accounts', { username: 'alice', password: 'alice-pw' });
    await create(admin, 'accounts', { username: 'bob', password: 'bob-pw' });
  });

  test('phonebooks: create one, import a CSV whose bad rows are reported by line, search, deactivate, export', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.getByRole('link', { name: 'Phonebooks' }).click();
      await page.getByRole('heading', { name: 'No phonebook yet' }).waitFor();
      await shot(page, 'phonebooks-empty');

      // A name is required: the API's message shows beside the field.
      await page.getByRole('button', { name: 'Create phonebook' }).click();
      await refused(page);
      assert.match(await page.locator('.field-error').first().innerText(), /required|blank/i);
      await page.getByLabel('Name').fill('Customers');
      await page.getByLabel('Description').fill('Spring offer');
      await page.getByRole('button', { name: 'Create phonebook' }).click();
      await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
      bookId = Number(/\/phonebooks\/(\d+)$/.exec(page.url())?.[1]);
      assert.ok(bookId > 0, page.url());
      await page.getByRole('heading', { name: 'No contact in this phonebook yet' }).waitFor();

      await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(CONTACTS_CSV) });
      await page.getByRole('button', { name: 'Import' }).click();
      const result = page.locator('.import-result');
      await result.waitFor();
      assert.match(await result.innerText(), /3 contacts imported, 0 duplicates skipped,\s*2 rows rejected/);
      const rejected = await page.locator('table.rejected tbody tr').allInnerTexts();
      assert.equal(rejected.length, 2, rejected.join('\n'));
      assert.match(rejected[0], /^3\s+.*valid phone number/i);
      assert.match(rejected[1], /^5\s+.*valid phone number/i);
      await page.getByRole('cell', { name: 'Grace Hopper' }).waitFor();
      await page.getByText('3 contacts', { exact: true }).waitFor();
      await shot(page, 'phonebook-import-rejected');

      // A bad number typed in the form: the API's message beside the field.
      await page.getByLabel('Phone number').fill('abc');
      await page.getByRole('button', { name: 'Add contact' }).click();
      await page.getByText('Enter a valid phone number.', { exact: true }).waitFor();
      await page.getByLabel('Phone number').fill('+1 555 010 0004');
      await page.getByLabel('Full name').fill('Katherine Johnson');
      await page.getByRole('button', { name: 'Add contact' }).click();
      await page.getByRole('cell', { name: 'Katherine Johnson' }).waitFor();

      // Edit: the form holds the contact as imported, its extra column among the variables.
      await page.getByRole('button', { name: 'Edit +15550100001' }).click();
      const edit = page.getByRole('region', { name: 'Edit +15550100001' });
      assert.equal(await edit.getByLabel('Additional variables').inputValue(), '{"city":"London"}');
      await edit.getByLabel('Full name').fill('Ada King');
      await edit.getByRole('button', { name: 'Save contact' }).click();
      await page.getByRole('cell', { name: 'Ada King' }).waitFor();
      await edit.waitFor({ state: 'detached' });

      // Search by name, then by digits written another way.
      await page.getByLabel('Search by number or name').fill('hopper');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('1 contact matches “hopper”.').waitFor();
      assert.equal(await page.locator('table tbody tr').filter({ hasText: '+15550100002' }).count(), 1);
      await page.getByLabel('Search by number or name').fill('555-010-0003');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('1 contact matches “555-010-0003”.').waitFor();
      await page.getByRole('cell', { name: 'Alan Turing' }).waitFor();
      await shot(page, 'phonebook-search');

      await page.getByRole('button', { name: 'Deactivate +15550100003' }).click();
      await page.getByRole('button', { name: 'Activate +15550100003' }).waitFor();
      await page.getByRole('cell', { name: 'Inactive (not called)' }).waitFor();
      const contacts = await request(ui.server, 'GET', `/rest-api/contact/?phonebook_id=${bookId}`, alice);
      const turing = contacts.body.results.find((c: { contact: string }) => c.contact === '+15550100003');
      assert.equal(turing.status, 0, JSON.stringify(turing));
      await page.getByRole('button', { name: 'Show all' }).click();

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      const csv = await downloadedText(download);
      for (const n of ['+15550100001', '+15550100002', '+15550100003', '+15550100004']) assert.ok(csv.includes(n), csv);
      assert.ok(!csv.includes('not-a-number'), csv);

      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Customers 2026');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Customers 2026', level: 1 }).waitFor();

      await page.getByRole('link', { name: 'Phonebooks', exact: true }).first().click();
      const row = page.getByRole('row').filter({ hasText: 'Customers 2026' });
      await row.getByRole('cell', { name: '4', exact: true }).waitFor();
      await shot(page, 'phonebooks-list');

      await page.goto(`${ui.server.base}/phonebooks/${bookId}`);
      await page.getByRole('heading', { name: 'Customers 2026', level: 1 }).waitFor();
      await page.setViewportSize(PHONE);
      await assertFitsPhone(page);
      await shot(page, 'phonebook-phone');
    } finally {
      await context.close();
    }
  });

  test('DNC lists: add a number and the check says which list blocks it; an import reports its bad lines', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.getByRole('link', { name: 'DNC lists' }).click();
      await page.getByRole('heading', { name: 'No DNC list yet' }).waitFor();
      await page.getByLabel('Name').fill('Complaints');
      await page.getByRole('button', { name: 'Create DNC list' }).click();
      await page.getByRole('heading', { name: 'Complaints', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'No number on this list yet' }).waitFor();
      await page.getByLabel('Phone number').fill('+1 555 010 0099');
      await page.getByRole('button', { name: 'Add number' }).click();
      await page.getByRole('cell', { name: '+15550100099', exact: true }).waitFor();

      // The upload's progress, seen with the upload throttled to 32 KB/s: ~100 KB of padding
      // rows (blank lines, skipped by the import) behind the two numbers.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 32 * 1024 });
      const padding = '\n'.repeat(100_000);
      await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'dnc.csv', mimeType: 'text/csv', buffer: Buffer.from(`phone_number\n+15550100098\nnope\n${padding}`) });
      await page.getByRole('button', { name: 'Import' }).click();
      // A share strictly between 0 and 100 comes only from the browser's upload progress events.
      await page.getByRole('status').filter({ hasText: /Sending… [1-9]\d? %/ }).waitFor();
      await shot(page, 'dnc-import-progress');
      await page.locator('.import-result').waitFor({ timeout: 30_000 });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      assert.match(await page.locator('.import-result').innerText(), /1 number imported, 0 duplicates skipped,\s*1 row rejected/);
      assert.match((await page.locator('table.rejected tbody tr').allInnerTexts()).join('\n'), /^3\s+.*valid phone number/i);
      await page.getByRole('cell', { name: '+15550100098', exact: true }).waitFor();
      await shot(page, 'dnc-list');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
      assert.match(await downloadedText(download), /^phone_number\r?\n\+15550100099\r?\n\+15550100098\r?\n$/);
      await page.getByRole('button', { name: 'Remove +15550100098' }).click();
      await page.getByRole('cell', { name: '+15550100098', exact: true }).waitFor({ state: 'detached' });
      await page.getByText('1 number ·').waitFor();

      await page.getByRole('link', { name: 'DNC lists', exact: true }).first().click();
      await page.getByLabel('Phone number to check').fill('15550100099');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('15550100099 is blocked by Complaints').waitFor();
      await shot(page, 'dnc-check-blocked');
      await page.getByLabel('Phone number to check').fill('+15550100001');
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('+15550100001 is on none of your DNC lists.').waitFor();
      await page.setViewportSize(PHONE);
      await assertFitsPhone(page);
      await shot(page, 'dnc-phone');
    } finally {
      await context.close();
    }
  });

  test('audio: an upload by drop and one by the file input are listed with a player that plays, their figures and where they are used', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.getByRole('link', { name: 'Audio' }).click();
      await page.getByRole('heading', { name: 'No audio file yet' }).waitFor();

      // Drag and drop: a drop event carrying the file, as a browser sends it.
      const wav = makeWav(1.5).toString('base64');
      const transfer = await page.evaluateHandle((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'welcome.wav', { type: 'audio/wav' }));
        return dt;
      }, wav);
      await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
      await page.getByText('Chosen: welcome.wav').waitFor();
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'welcome');
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.getByText('“welcome” uploaded.').waitFor();
      const card = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });
      const row = card('welcome');
      await row.getByText('1.5 s', { exact: true }).waitFor();
      await row.getByText('8,000 Hz', { exact: true }).waitFor();
      await row.getByText('mono', { exact: true }).waitFor();

      // The file input (keyboard users), a stereo 16 kHz file; then a file that is not audio.
      await page.getByLabel('Audio file', { exact: true }).setInputFiles({ name: 'goodbye.wav', mimeType: 'audio/wav', buffer: makeWav(0.5, { sampleRate: 16000, channels: 2 }) });
      await page.getByLabel('Name', { exact: true }).fill('Goodbye');
      await page.getByRole('button', { name: 'Upload' }).click();
      await card('Goodbye').getByText('stereo', { exact: true }).waitFor();
      await page.getByLabel('Audio file', { exact: true }).setInputFiles({ name: 'notes.wav', mimeType: 'audio/wav', buffer: Buffer.from('not audio at all') });
      await page.getByLabel('Name', { exact: true }).fill('Notes');
      await page.getByRole('button', { name: 'Upload' }).click();
      await refused(page);
      await shot(page, 'audio-upload-refused');

      // The player loads the bytes with the session cookie alone.
      const duration = await row.locator('audio').evaluate(
        (audio: HTMLAudioElement) =>
          new Promise<number>((resolve, reject) => {
            audio.addEventListener('loadedmetadata', () => resolve(audio.duration), { once: true });
            audio.addEventListener('error', () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true });
            audio.preload = 'auto';
            audio.load();
          }),
      );
      assert.ok(Math.abs(duration - 1.5) < 0.05, String(duration));

      // Used by a survey section: shown once the section names it.
      const files = await request(ui.server, 'GET', '/rest-api/audio-files/', alice);
      const welcome = files.body.results.find((f: { name: string }) => f.name === 'welcome');
      const survey = await create(alice, 'survey-template', { name: 'Spring survey' });
      await create(alice, 'section-template', { survey: survey.url, type: 1, question: 'Hello', audiofile: welcome.url });
      await page.reload();
      await row.getByText('Spring survey: “Hello”').waitFor();
      await card('Goodbye').getByText('nothing yet').waitFor();
      await shot(page, 'audio-list');

      // Deleting: refused while a section uses the file (the API's 409, in words); done otherwise.
      await row.getByRole('button', { name: 'Delete welcome' }).click();
      await page.getByRole('button', { name: 'Delete audio file' }).click();
      await page.getByText('This audio file is used by a survey section or a campaign').waitFor();
      await card('Goodbye').getByRole('button', { name: 'Delete Goodbye' }).click();
      await page.getByRole('button', { name: 'Delete audio file' }).click();
      await page.getByRole('heading', { name: 'Goodbye', exact: true }).waitFor({ state: 'detached' });
      await row.waitFor();
      await page.setViewportSize(PHONE);
      await assertFitsPhone(page);
      await shot(page, 'audio-phone');
    } finally {
      await context.close();
    }
  });

  test("an ordinary user never sees another user's phonebook", async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'bob', 'bob-pw');
      await page.getByRole('link', { name: 'Phonebooks' }).click();
      await page.getByRole('heading', { name: 'No phonebook yet' }).waitFor();
      assert.equal(await page.getByText('Customers').count(), 0);
      await page.goto(`${ui.server.base}/phonebooks/${bookId}`);
      await page.getByText('There is no such phonebook, or it is not yours.').waitFor();
      assert.equal(await page.getByText('Ada Lovelace').count(), 0);
      await shot(page, 'phonebook-not-yours');
    } finally {
      await context.close();
    }
  });
});
