/**
 * The campaign page's survey results and calls in progress in a real browser: Debian's Chromium
 * driven by playwright-core against the real server started as a process (a fresh DATA_DIR, or
 * a fresh PostgreSQL database when TEST_DATABASE_URL is set). The survey, the simulator gateway
 * (its callers press one of the question's keys at random) and the campaign are made through the
 * API; the campaign is started from the page and runs to its end on the simulator. The page's
 * charts are checked against /rest-api/campaigns/<id>/results/. Screenshots go to
 * test-output/screenshots/ (look at them).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { request } from '../cli-process.ts';
import { basic, dbLabel, idOf } from '../helpers.ts';
import { browserHarness } from './harness.ts';

const NUMBERS = ['+15550300001', '+15550300002', '+15550300003', '+15550300004', '+15550300005', '+15550300006'];

const KEY_LABELS: Record<string, string> = { '1': 'yes', '2': 'no', '3': 'maybe' };

const admin = basic('admin', 'admin-pw');
const alice = basic('alice', 'alice-pw');

describe(`the campaign page's survey results and calls in progress in Chromium (${dbLabel})`, () => {
  let campaignId: number;
  const ui = browserHarness({ name: 'results', context: { locale: 'en-US', timezoneId: 'America/New_York' } });
  const { create, newPage, shot, signIn } = ui;

  before(async () => {
    await create(admin, 'accounts', { username: 'alice', password: 'alice-pw', balance: '100', call_rate: '0' });
    // Every call answered by a person who presses one of the question's keys at random. A call
    // lasts as long as the survey takes (its prompts, the key, the thanks): 8–16 simulated
    // seconds, 4–8 s at 2 simulated seconds per real second, so calls overlap and one is in
    // flight long enough for the page's 2 s reads. (At 60 they lasted a fifth of a second: the
    // page saw none when the reads fell between them, which a loaded machine made likely.)
    const gateway = await create(admin, 'gateway', {
      name: 'Simulated carrier',
      driver: 'simulator',
      settings: { answer_rate: 1, machine_rate: 0, talk_seconds: [120, 180], dtmf: 'random', time_scale: 2 },
    });
    const book = await create(alice, 'phonebook', { name: 'Survey book' });
    for (const contact of NUMBERS) await create(alice, 'contact', { phonebook: book.url, contact });
    const survey = await create(alice, 'survey-template', { name: 'Satisfaction survey' });
    const question = await create(alice, 'section-template', {
      survey: survey.url,
      type: 2,
      question: 'Satisfied?',
      script: 'Were you satisfied? Press 1 for yes, 2 for no, 3 if you do not know.',
      key_1: KEY_LABELS['1'],
      key_2: KEY_LABELS['2'],
      key_3: KEY_LABELS['3'],
    });
    const thanks = await create(alice, 'section-template', { survey: survey.url, type: 7, question: 'Thanks', script: 'Thank you, goodbye.', completed: true });
    // The simulator presses one of the keys the branches name (src/engine/call.ts, expectedKeys).
    await create(alice, 'branching-template', { section: question.url, keys: '1,2,3', goto: thanks.url });
    const flow = await request(ui.server, 'GET', `/rest-api/survey-template/${idOf(survey.url)}/flow/`, alice);
    assert.deepEqual(flow.body.problems, [], JSON.stringify(flow.body));
    const campaign = await create(alice, 'campaigns', {
      name: 'Satisfaction calls',
      callerid: '+15550000000',
      phonebook: [book.url],
      object_id: idOf(survey.url),
      aleg_gateway: gateway.url,
      frequency: 60,
      end_when_done: true,
    });
    campaignId = campaign.id;
  });

  test('the campaign runs from its page: calls in progress while it dials, then one chart per question matching the API', async () => {
    const { context, page } = await newPage();
    // For a miss's message: the page's reads of call requests and campaigns, and its console.
    const reads: string[] = [];
    const messages: string[] = [];
    const started = Date.now();
    page.on('response', (r) => {
      if (/\/rest-api\/(callrequest|campaigns)\//.test(r.url())) reads.push(`${((Date.now() - started) / 1000).toFixed(1)}s ${r.status()} ${new URL(r.url()).pathname}${new URL(r.url()).search}`);
    });
    page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
    try {
      await signIn(page, 'alice', 'alice-pw');
      await page.goto(`${ui.server.base}/campaigns/${campaignId}`);
      const results = page.getByTestId('survey-results');
      const live = page.getByTestId('live-calls');
      await results.getByRole('heading', { name: 'No answer yet' }).waitFor();
      await live.getByRole('heading', { name: 'No call in progress' }).waitFor();
      await shot(page, 'campaign-results-empty');

      await page.getByRole('button', { name: 'Start' }).click();
      // A call in flight shows with its number (the list is read every 2 s while the campaign runs).
      const row = live.getByRole('row').filter({ hasText: /\+1555030000\d/ }).first();
      await row.waitFor({ timeout: 60_000 }).catch(async (err: Error) => {
        // What the API and the page saw meanwhile, to tell a page that did not read from an engine that did not dial.
        const seen = await request(ui.server, 'GET', `/rest-api/callrequest/?campaign_id=${campaignId}`, alice);
        const now = await request(ui.server, 'GET', `/rest-api/campaigns/${campaignId}/`, alice);
        const calls = (seen.body.results ?? []).map((c: { phone_number: string; status: number }) => `${c.phone_number}:${c.status}`);
        const cdrs = await request(ui.server, 'GET', `/rest-api/cdr/?campaign_id=${campaignId}`, alice);
        const times = (cdrs.body.results ?? []).map((c: { starting_date: string; duration: number }) => `${c.starting_date} ${c.duration} s`);
        await shot(page, 'campaign-calls-missing');
        const shown = await page.getByTestId('status').allInnerTexts();
        const visibility = await page.evaluate(() => document.visibilityState);
        throw new Error(
          `${err.message}\ncampaign status ${now.body.status}; call requests ${calls.join(', ')}; CDRs ${times.join(', ')}\n` +
            `the page: status ${shown.join(' ')}, document ${visibility}; requests ${reads.slice(-12).join(', ')}; console ${messages.slice(-5).join(' | ')}`,
        );
      });
      const cells = await row.getByRole('cell').allInnerTexts();
      assert.ok(NUMBERS.includes(cells[0]), `a phonebook number: ${cells.join(' | ')}`);
      assert.equal(cells[2], '1', 'first attempt');
      await shot(page, 'campaign-calls-in-progress');

      await page.getByTestId('status').filter({ hasText: 'Ended' }).waitFor({ timeout: 90_000 });
      const api = await request(ui.server, 'GET', `/rest-api/campaigns/${campaignId}/results/`, alice);
      assert.equal(api.status, 200, JSON.stringify(api.body));
      assert.equal(api.body.results.length, 1, JSON.stringify(api.body));
      const [question] = api.body.results as { question: string; answered: number; responses: { response: string; label: string | null; count: number }[] }[];
      assert.equal(question.question, 'Satisfied?');
      assert.equal(question.answered, NUMBERS.length, `every simulated caller answered: ${JSON.stringify(question)}`);
      assert.equal(question.responses.reduce((sum, r) => sum + r.count, 0), question.answered);
      for (const r of question.responses) assert.match(r.response, /^[123]$/, 'a key of the question');
      for (const r of question.responses) assert.equal(r.label, KEY_LABELS[r.response], "the key's label in the survey");

      // The page caught up (call.completed made the results stale) and shows what the API counted.
      const chart = results.getByTestId('question-chart');
      await chart.getByText(`${NUMBERS.length} calls answered`).waitFor();
      await live.getByRole('heading', { name: 'No call in progress' }).waitFor();
      assert.equal(await chart.count(), 1);
      await chart.getByText('Satisfied?').waitFor();
      const shown = await chart.getByTestId('response').evaluateAll((rows) =>
        rows.map((r) => [r.querySelector('th')?.textContent ?? '', r.querySelector('[data-testid="count"]')?.textContent ?? '']),
      );
      const share = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }); // console/src/format.ts, en-US
      const expected = question.responses.map((r) => [`${r.response} · ${KEY_LABELS[r.response]}`, `${r.count} (${share.format(r.count / question.answered)})`]);
      assert.deepEqual(shown, expected, 'the bars, in order, with counts and shares');
      const sum = shown.reduce((total, [, text]) => total + Number(/^\d+/.exec(text)?.[0]), 0);
      assert.equal(sum, NUMBERS.length, 'the counts shown add up to the answers');
      await shot(page, 'campaign-results');
      await page.setViewportSize({ width: 390, height: 844 }); // a phone: the bars shrink, the numbers stay written out
      await chart.getByTestId('response').first().waitFor();
      await shot(page, 'campaign-results-phone');
    } finally {
      await context.close();
    }
  });
});
