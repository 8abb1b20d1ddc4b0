/**
 * The Surveys page in a real browser (issue 15): a survey with a branch built through the
 * editor, its flow problem shown on the node before the branches exist and gone after, what was
 * built checked through the API, and another user's surveys out of sight. Same harness as
 * console.test.ts (Debian's Chromium via playwright-core, the real server as a process on a
 * fresh DATA_DIR or a fresh PostgreSQL database); screenshots under test-output/screenshots/.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { request } from '../cli-process.ts';
import { basic, dbLabel, onPostgres } from '../helpers.ts';
import { browserHarness, PHONE, refused, SHOTS } from './harness.ts';

const admin = basic('admin', 'admin-pw');
const alice = basic('alice', 'alice-pw');
const bob = basic('bob', 'bob-pw');

/** In the editor's panel: add a section of `type` (its option's label) named `question`, then `fill` the rest. */
async function addSection(page: Page, type: string, question: string, fill?: (panel: ReturnType<Page['locator']>) => Promise<void>) {
  await page.getByRole('button', { name: 'Add a section' }).click();
  const panel = page.locator('aside.survey-panel');
  await panel.getByRole('heading', { name: 'New section' }).waitFor();
  await panel.getByLabel('Type').selectOption({ label: type });
  await panel.getByLabel(/^Question/).fill(question);
  await fill?.(panel);
  await panel.getByRole('button', { name: 'Add section' }).click();
}

describe(`the Surveys page in Chromium (${dbLabel})`, () => {
  const ui = browserHarness({ name: 'surveys' });
  const { create, newPage, shot, signIn } = ui;
  let bobsSurvey: { id: number; name: string };

  before(async () => {
    await create(admin, 'accounts', { username: 'alice', password: 'alice-pw' });
    await create(admin, 'accounts', { username: 'bob', password: 'bob-pw' });
    bobsSurvey = await create(bob, 'survey-template', { name: 'Bob private survey' });
  });

  test('a multi-choice question branching to two closing messages is built in the editor; its problem shows on the node until the branches exist', async () => {
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Surveys', exact: true }).click();
      await page.getByRole('heading', { name: 'No survey yet' }).waitFor();
      assert.equal(await page.getByText('Bob private survey').count(), 0, "bob's survey is not alice's to see");
      await shot(page, 'surveys-empty');

      // The API's message beside the field: a survey needs a name.
      await page.getByRole('button', { name: 'Create survey' }).click();
      const nameField = page.getByLabel("New survey's name");
      await refused(page);
      assert.equal(await nameField.getAttribute('aria-invalid'), 'true');
      await nameField.fill('Satisfaction');
      await page.getByRole('button', { name: 'Create survey' }).click();
      await page.getByRole('heading', { name: 'Satisfaction', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'No section yet' }).waitFor();
      await shot(page, 'survey-editor-empty');

      await addSection(page, '2. Multi-choice', 'Satisfied?', async (panel) => {
        await panel.getByLabel(/^Script/).fill('Were you satisfied with our service? Press 1 for yes, 2 for no.');
        await panel.getByLabel('Key 1', { exact: true }).fill('yes');
        await panel.getByLabel('Key 2', { exact: true }).fill('no');
      });
      await page.getByRole('heading', { name: '1. Multi-choice: Satisfied?' }).waitFor();
      for (const name of ['Thanks', 'Sorry']) {
        await addSection(page, '7. Hang up', name, (panel) => panel.getByLabel('Reaching this section completes the subscriber').check());
        await page.getByRole('heading', { name: new RegExp(`^\\d\\. Hang up: ${name}$`) }).waitFor();
      }

      // A type's own rule, answered by the API beside the field it concerns; nothing is created.
      // (A call transfer may be saved without its number since issue 17: the conference rule shows it.)
      await addSection(page, '8. Conference', 'Agent');
      const room = page.getByLabel('Conference room');
      await page.getByText('A conference section (type 8) needs a conference room.').waitFor();
      assert.equal(await room.getAttribute('aria-invalid'), 'true');
      await shot(page, 'survey-editor-field-error');
      await page.getByRole('button', { name: 'Close' }).click();

      // The problem, on the question's node and in the list, before any branch exists.
      const questionNode = page.locator('.react-flow__node', { hasText: 'Satisfied?' });
      await questionNode.locator('.flow-node-problem', { hasText: 'offers key 1, 2 but has no branch' }).waitFor();
      await page.locator('.flow-problems li', { hasText: 'offers key 1, 2' }).waitFor();
      const order = page.getByRole('region', { name: 'Play order' });
      assert.deepEqual(
        (await order.locator('.section-button').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim()),
        // Sorry too: without branches a call only falls through from the question to Thanks.
        ['1Multi-choice Satisfied? ⚠ 1 problem', '2Hang up Thanks', '3Hang up Sorry ⚠ 1 problem'],
      );
      await page.locator('.react-flow__node', { hasText: 'Sorry' }).locator('.flow-node-problem', { hasText: 'can never be reached' }).waitFor();
      await shot(page, 'survey-editor-problem');

      // From the keyboard: the graph's node takes focus and Enter opens its form.
      await questionNode.focus();
      await page.keyboard.press('Enter');
      const panel = page.locator('aside.survey-panel');
      await panel.getByRole('heading', { name: '1. Multi-choice: Satisfied?' }).waitFor();
      assert.equal(await panel.getByLabel('Key 2', { exact: true }).inputValue(), 'no');

      for (const [keys, target] of [['1', '2. Thanks'], ['2', '3. Sorry']]) {
        await panel.getByLabel('Answer (keys)').fill(keys);
        await panel.getByLabel('Go to').selectOption({ label: target });
        await panel.getByRole('button', { name: 'Add branch' }).click();
        await panel.locator('.branch-list li', { hasText: `${keys} → ${target}` }).waitFor();
      }
      // A second branch for the same key is refused, with the API's reason beside the field.
      await panel.getByLabel('Answer (keys)').fill('1');
      await panel.getByRole('button', { name: 'Add branch' }).click();
      await panel.getByText('This section already has a branch for "1".').waitFor();

      await page.getByText('Ready to run: the flow check finds no problem.').waitFor();
      assert.equal(await page.locator('.flow-node-problem').count(), 0);
      await page.locator('.react-flow__edge', { hasText: 'key 1' }).waitFor();
      await page.locator('.react-flow__edge', { hasText: 'key 2' }).waitFor();
      // The README's picture: the graph beside the question's form, at the top of the page.
      await page.evaluate(() => window.scrollTo(0, 0));
      await panel.evaluate((el) => el.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SHOTS, onPostgres ? 'pg-survey-editor.png' : 'survey-editor.png') });
      await shot(page, 'survey-editor-full');

      // What was built, through the API.
      const surveys = await request(ui.server, 'GET', '/rest-api/survey-template/', alice);
      const survey = surveys.body.results.find((s: { name: string }) => s.name === 'Satisfaction');
      const sections = (await request(ui.server, 'GET', `/rest-api/section-template/?survey_id=${survey.id}`, alice)).body.results;
      assert.deepEqual(
        sections.map((s: any) => [s.type, s.question, s.completed, s.key_1, s.key_2]),
        [
          [2, 'Satisfied?', false, 'yes', 'no'],
          [7, 'Thanks', true, null, null],
          [7, 'Sorry', true, null, null],
        ],
        JSON.stringify(sections),
      );
      const [question, thanks, sorry] = sections;
      const branches = (await request(ui.server, 'GET', `/rest-api/branching-template/?section_id=${question.id}`, alice)).body.results;
      assert.deepEqual(
        branches.map((b: any) => [b.keys, b.goto]).sort(),
        [
          ['1', thanks.url],
          ['2', sorry.url],
        ],
      );
      assert.deepEqual((await request(ui.server, 'GET', `/rest-api/survey-template/${survey.id}/flow/`, alice)).body.problems, []);
    } finally {
      await context.close();
    }
  });

  test('the list renames and deletes a survey; bob sees only his own, and alice’s editor answers him Not found', async () => {
    const own = await create(alice, 'survey-template', { name: 'Old draft' });
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.goto(`${ui.server.base}/surveys`);
      await page.getByRole('button', { name: 'Rename Old draft' }).click();
      await page.getByLabel('New name for Old draft').fill('');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await refused(page);
      await page.getByLabel('New name for Old draft').fill('Spring draft');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('link', { name: 'Spring draft' }).waitFor();
      await page.getByRole('button', { name: 'Delete Spring draft' }).click();
      await page.getByRole('dialog', { name: 'Delete Spring draft?' }).getByRole('button', { name: 'Delete the survey' }).click();
      await page.getByRole('link', { name: 'Spring draft' }).waitFor({ state: 'detached' });
      assert.equal((await request(ui.server, 'GET', `/rest-api/survey-template/${own.id}/`, alice)).status, 404);
      await shot(page, 'surveys-list');
    } finally {
      await context.close();
    }

    const alices = await create(alice, 'survey-template', { name: 'Alice private survey' });
    const { context: bobs, page: bobPage } = await newPage();
    try {
      await signIn(bobPage, 'bob', 'bob-pw');
      await bobPage.goto(`${ui.server.base}/surveys`);
      await bobPage.getByRole('link', { name: bobsSurvey.name }).waitFor();
      assert.equal(await bobPage.getByRole('link', { name: alices.name }).count(), 0);
      await bobPage.goto(`${ui.server.base}/surveys/${alices.id}`);
      await bobPage.getByRole('alert').filter({ hasText: 'Not found.' }).waitFor();
    } finally {
      await bobs.close();
    }
  });

  test('a branch is removed from its section; from the keyboard the play-order list opens a section, whose delete asks first', async () => {
    const survey = await create(alice, 'survey-template', { name: 'Keyboard survey' });
    const welcome = await create(alice, 'section-template', { survey: survey.url, type: 1, question: 'Welcome', script: 'Welcome.' });
    const bye = await create(alice, 'section-template', { survey: survey.url, type: 7, question: 'Bye', script: 'Goodbye.' });
    await create(alice, 'branching-template', { section: welcome.url, keys: '0', goto: bye.url });
    const { context, page } = await newPage();
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.goto(`${ui.server.base}/surveys/${survey.id}`);
      await page.getByRole('region', { name: 'Play order' }).getByRole('button', { name: /Welcome/ }).click();
      await page.getByRole('button', { name: 'Remove the branch 0 → 2. Bye' }).click();
      await page.getByText('No branch: after this section the call goes on').waitFor();
      assert.equal((await request(ui.server, 'GET', `/rest-api/branching-template/?section_id=${welcome.id}`, alice)).body.count, 0);

      const byeButton = page.getByRole('region', { name: 'Play order' }).getByRole('button', { name: /Bye/ });
      await byeButton.focus();
      await page.keyboard.press('Enter');
      const heading = page.getByRole('heading', { name: '2. Hang up: Bye' });
      await heading.waitFor();
      // The keyboard goes on in the panel.
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'panel-title');
      await page.getByRole('button', { name: 'Delete this section…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the section Bye?' });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.equal((await request(ui.server, 'GET', `/rest-api/section-template/${bye.id}/`, alice)).status, 200);
      await page.getByRole('button', { name: 'Delete this section…' }).click();
      await dialog.getByRole('button', { name: 'Delete the section' }).click();
      await heading.waitFor({ state: 'detached' });
      await page.getByRole('region', { name: 'Play order' }).getByRole('button', { name: /Bye/ }).waitFor({ state: 'detached' });
      assert.equal((await request(ui.server, 'GET', `/rest-api/section-template/${bye.id}/`, alice)).status, 404);
    } finally {
      await context.close();
    }
  });

  test('at phone width the editor shows the play order as a list (no graph) and opens the same form', async () => {
    const survey = await create(alice, 'survey-template', { name: 'Pocket survey' });
    await create(alice, 'section-template', { survey: survey.url, type: 1, question: 'Hello', script: 'Hello from the survey.' });
    await create(alice, 'section-template', { survey: survey.url, type: 7, question: 'Thanks', script: 'Thank you, goodbye.', completed: true });
    const { context, page } = await newPage(PHONE);
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.goto(`${ui.server.base}/surveys/${survey.id}`);
      await page.getByRole('region', { name: 'Play order' }).waitFor();
      assert.equal(await page.locator('.react-flow').count(), 0);
      await page.getByRole('button', { name: /Thanks/ }).click();
      await page.getByRole('heading', { name: '2. Hang up: Thanks' }).waitFor();
      assert.equal(await page.getByLabel('Reaching this section completes the subscriber').isChecked(), true);
      await shot(page, 'survey-editor-phone');
    } finally {
      await context.close();
    }
  });
});
