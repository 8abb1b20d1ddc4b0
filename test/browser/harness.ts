/**
 * What every browser test shares: Debian's Chromium (a peer, scripts/peers.js; a browser
 * download never works here), the flags it needs on this machine's closed network, where
 * screenshots go (git-ignored; look at them, they are the review of the layout), and
 * `browserHarness()`: the real server as a process on a fresh DATA_DIR (or a fresh PostgreSQL
 * database when TEST_DATABASE_URL is set), Chromium, and the few steps every flow takes
 * (records made through the API, a page, signing in, a screenshot).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type BrowserServer, type Download, type Page } from 'playwright-core';
import { request, type Server, startServe, stop } from '../cli-process.ts';
import { freshPostgresDatabase, onPostgres, settledWithin } from '../helpers.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SHOTS = path.resolve('test-output/screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface HarnessOptions {
  /** The temporary folder's prefix (its DATA_DIR), so a leftover one says which file left it. */
  name: string;
  /** More of the server's environment (DIALER_ADMIN_PASSWORD is `admin-pw`). */
  env?: Record<string, string>;
  /** Put before each screenshot's name (after pg-/pglite-). */
  shotPrefix?: string;
  /** Every page's browser context (locale, time zone, downloads). */
  context?: BrowserContextOptions;
}

export interface Harness {
  /** The running server (set once the harness's before() has run). */
  readonly server: Server;
  /** POST through the API; the created record (assert 201, or show the body). */
  create(auth: string, resource: string, body: unknown): Promise<any>;
  /** A fresh context and page (its own cookies); close the context when done. */
  newPage(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>;
  /** Submit the sign-in form, without waiting for what follows (a refusal, a throttle). */
  submitSignIn(page: Page, username: string, password: string): Promise<void>;
  /** Sign in and wait for the dashboard. */
  signIn(page: Page, username: string, password: string): Promise<void>;
  /** A full-page screenshot under SHOTS, named for the database. */
  shot(page: Page, name: string): Promise<void>;
}

/**
 * Starts the server and Chromium before the file's tests and stops both (and drops the
 * PostgreSQL database) after them. Call it at the top of the file's describe(): an after()
 * registered inside a before() hook would run as soon as that hook ends.
 */
export function browserHarness(options: HarnessOptions): Harness {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `cd-browser-${options.name}-`));
  let server: Server | undefined;
  let browser: Browser | undefined;
  let chromiumProcess: BrowserServer | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const env: Record<string, string> = { DATA_DIR: path.join(root, 'data'), DIALER_ADMIN_PASSWORD: 'admin-pw', ...options.env };
    if (onPostgres) {
      const fresh = await freshPostgresDatabase();
      dropDatabase = fresh.drop;
      env.DATABASE_URL = fresh.url;
    }
    server = await startServe(env);
    // Launched as a server and connected to, so that its process can be killed: Chromium now
    // and then never finishes closing (a known Playwright/Chromium hang), and the test file
    // would wait for it until its time budget ran out.
    chromiumProcess = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    browser = await chromium.connect(chromiumProcess.wsEndpoint());
  });
  after(async () => {
    // Each step even when one before it fails: a server or database left behind outlives the test.
    await closeChromium(browser, chromiumProcess);
    try {
      if (server) await stop(server);
    } finally {
      await dropDatabase?.();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  const running = (): Server => {
    assert.ok(server, 'the server is not started yet (browserHarness() registers a before hook)');
    return server;
  };
  const submitSignIn = async (page: Page, username: string, password: string) => {
    await page.goto(`${running().base}/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  return {
    get server() {
      return running();
    },
    async create(auth, resource, body) {
      const res = await request(running(), 'POST', `/rest-api/${resource}/`, auth, body);
      assert.equal(res.status, 201, `POST ${resource}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async newPage(viewport = DESKTOP) {
      assert.ok(browser, 'the browser is not started yet');
      const context = await browser.newContext({ ...options.context, viewport });
      const page = await context.newPage();
      // How long a page's wait may take. 20 s ran out twice on 2026-12-06 on a slow 2-core machine
      // running the whole suite (two waits for the API's refusal of a form, in two different
      // tests; each passed when run again alone). Whether slowness or something else, a longer
      // wait tells the two apart in the next failure's log; it makes no passing test slower.
      page.setDefaultTimeout(60_000);
      keepTrail(page);
      return { context, page };
    },
    submitSignIn,
    async signIn(page, username, password) {
      await submitSignIn(page, username, password);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    },
    async shot(page, name) {
      await page.screenshot({ path: path.join(SHOTS, `${onPostgres ? 'pg' : 'pglite'}-${options.shotPrefix ?? ''}${name}.png`), fullPage: true });
    },
  };
}

/** What each page did lately (its navigations, API requests and answers, errors), for refused(). */
const trails = new WeakMap<Page, string[]>();

function keepTrail(page: Page): void {
  const lines: string[] = [];
  trails.set(page, lines);
  const t0 = Date.now();
  const add = (line: string) => {
    lines.push(`${Date.now() - t0} ms ${line}`);
    if (lines.length > 40) lines.shift();
  };
  const api = (url: string) => (url.includes('/rest-api/') ? new URL(url).pathname + new URL(url).search : undefined);
  page.on('request', (r) => api(r.url()) && add(`> ${r.method()} ${api(r.url())}`));
  page.on('response', (r) => api(r.url()) && add(`< ${r.status()} ${r.request().method()} ${api(r.url())}`));
  page.on('requestfailed', (r) => add(`failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('pageerror', (e) => add(`page error: ${e.message}`));
  page.on('framenavigated', (f) => f === page.mainFrame() && add(`at ${new URL(f.url()).pathname}`));
}

/**
 * Waits for a form's refusal (`messages`: by default its first field message). A form submitted
 * right after it appeared waited 60 s for its refusal a few times in full runs, never alone (its
 * cause is not found): a timeout says what the page did meanwhile, and what its banner says.
 */
export async function refused(page: Page, messages = page.locator('.field-error').first()): Promise<void> {
  try {
    await messages.waitFor();
  } catch (err) {
    const banner = await page.getByRole('alert').allInnerTexts().catch(() => []);
    throw new Error(`${(err as Error).message}\nat ${page.url()}, banner ${JSON.stringify(banner)}; what the page did:\n${(trails.get(page) ?? []).join('\n')}`, { cause: err });
  }
}

/** Closes the browser, or kills its process when it has not closed within 20 s (said on stderr). */
async function closeChromium(browser: Browser | undefined, chromiumProcess: BrowserServer | undefined): Promise<void> {
  const closing = (async () => {
    await browser?.close().catch(() => undefined);
    await chromiumProcess?.close();
  })().catch(() => undefined);
  if ((await settledWithin(closing, 20_000)) === 'late') {
    console.error('chromium did not close within 20 s: its process is killed');
    await chromiumProcess?.kill();
  }
}

/**
 * A download's text. Saved through the connection (the browser runs as a server, so the file it
 * wrote has no local path to read) into a temporary file, read, and removed.
 */
export async function downloadedText(download: Download): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cd-download-')), 'file');
  try {
    await download.saveAs(file);
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** At phone width nothing makes the page itself scroll sideways (wide tables scroll in their box). */
export async function assertFitsPhone(page: Page): Promise<void> {
  const { width, wide } = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    // What sticks out, to say what to fix.
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => Math.abs(e.getBoundingClientRect().right - document.documentElement.scrollWidth) < 2)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  }));
  assert.ok(width <= PHONE.width, `the page is ${width} px wide at ${PHONE.width} px: ${wide.join(', ')}`);
}

/**
 * On a campaign's page (voice or SMS) that starts tomorrow and reads `initial`: Start (it runs
 * and says it waits for its start date), Pause, Resume, then Abort… — Escape cancels the
 * confirmation (`shot` is taken while it is open), confirming aborts it and the Abort button goes away.
 */
export async function startPauseResumeAbort(page: Page, campaignName: string, initial: string, shot: () => Promise<void>): Promise<void> {
  const status = page.getByTestId('status');
  await status.filter({ hasText: initial }).waitFor();
  await page.getByRole('button', { name: 'Start' }).click();
  await status.filter({ hasText: 'Running' }).waitFor();
  await page.getByTestId('dialing-state').filter({ hasText: 'Waiting for its start date.' }).waitFor();
  await page.getByRole('button', { name: 'Pause' }).click();
  await status.filter({ hasText: 'Paused' }).waitFor();
  await page.getByRole('button', { name: 'Resume' }).click();
  await status.filter({ hasText: 'Running' }).waitFor();

  await page.getByRole('button', { name: 'Abort…' }).click();
  const dialog = page.getByRole('dialog', { name: `Abort ${campaignName}?` });
  await dialog.waitFor();
  await shot();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await status.innerText(), 'Running');
  await page.getByRole('button', { name: 'Abort…' }).click();
  await dialog.getByRole('button', { name: 'Abort the campaign' }).click();
  await status.filter({ hasText: 'Aborted' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Abort…' }).count(), 0, 'an aborted campaign offers no abort');
}
