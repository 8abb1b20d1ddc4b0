/**
 * The campaign-dialer command as a real process, for tests: run a command to its end, or start
 * `serve` on a free port and wait until it listens.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';
import { freshPostgresDatabase, onPostgres, settledWithin } from './helpers.ts';

/** Run as a program, as npx and `npm start` run it (its first line sets its environment). */
export const bin = path.resolve('bin/campaign-dialer.js');

export type Env = Record<string, string | undefined>;

/**
 * Servers still running when the test file ends are killed then. Registered here, at the top
 * level: an after() called inside a before() hook would run as soon as that hook ends.
 */
const servers = new Set<ChildProcess>();
const killServers = () => {
  for (const child of servers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
after(killServers);
process.on('exit', killServers); // also when the file is cut short (its time budget), skipping after()

/** The test process's environment without its database settings, plus `env`. */
export function childEnv(env: Env): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, DIALER_ADMIN_PASSWORD: _pw, DATA_DIR: _dir, ...inherited } = process.env;
  return { ...inherited, LOG_LEVEL: 'info', PORT: '0', ...env } as NodeJS.ProcessEnv;
}

/**
 * The environment of a server or command on a new database: DATA_DIR `dataDir` with the admin
 * password 'admin-pw' and, on PostgreSQL, a fresh database dropped when the file's tests end.
 */
export async function freshEnv(dataDir: string): Promise<Env> {
  const env: Env = { DATA_DIR: dataDir, DIALER_ADMIN_PASSWORD: 'admin-pw' };
  if (!onPostgres) return env;
  const { url, drop } = await freshPostgresDatabase();
  after(drop);
  return { ...env, DATABASE_URL: url };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  /** Resolves when the process has ended. */
  done: Promise<Run>;
}

/** Starts a command; `done` resolves with its exit code and output. */
export function start(args: string[], env: Env, cwd?: string): Started {
  const child = spawn(bin, args, { env: childEnv(env), cwd });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

/** Runs a command to its end. */
export function run(args: string[], env: Env, cwd?: string): Promise<Run> {
  return start(args, env, cwd).done;
}

export interface Server {
  child: ChildProcess;
  base: string;
  /** stdout and stderr as they came, interleaved. */
  output: () => string;
  /** Each stream alone (the log is stdout; the first start's password block is stderr). */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `serve` on a free port and waits until it listens; with `role` engine (no HTTP), until
 * the engine has started (`base` is then empty).
 */
export async function startServe(env: Env, role?: 'all' | 'api' | 'engine'): Promise<Server> {
  const child = spawn(bin, role ? ['serve', '--role', role] : ['serve'], { env: childEnv(env) });
  servers.add(child);
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => ((out += d), (stdout += d)));
  child.stderr.on('data', (d) => ((out += d), (stderr += d)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = role === 'engine' ? /starting \(role engine\)()/ : /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
  const base = await new Promise<string>((resolve, reject) => {
    // Generous: a first start migrates a new database, which takes a minute on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`serve did not start in 180 s:\n${out}`)), 180_000);
    child.stdout.on('data', () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before starting:\n${out}`)));
  });
  return { child, base, output: () => out, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * SIGTERM, then the exit code. A server still running `withinMs` later is killed and the call
 * throws with its output: a graceful stop that hangs is a bug to see, not a test file that
 * waits for its time budget and says only that it timed out.
 */
export async function stop(server: Server, withinMs = 60_000): Promise<number | null> {
  server.child.kill('SIGTERM');
  const code = await settledWithin(server.exited, withinMs);
  if (code !== 'late') return code;
  server.child.kill('SIGKILL');
  await server.exited;
  throw new Error(`serve did not stop within ${withinMs / 1000} s of SIGTERM (killed); its output ends:\n${server.output().slice(-4000)}`);
}

/** An HTTP request to the server, JSON in and out. */
export async function request(server: Server, method: string, url: string, auth?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.base}${url}`, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A command's stderr without its first line when that line names the database it used
 * (`campaign-dialer: using …`, src/cli-support.ts; test/cli.test.ts asserts the line itself), so
 * a test can compare the error line that follows exactly.
 */
export function withoutUsingLine(stderr: string): string {
  return stderr.replace(/^campaign-dialer: using [^\n]*\n/, '');
}

/**
 * Through the CLI, as an operator would: the admin `admin` (password `<admin>-pw`, who makes
 * gateways) and alice (alice-pw, balance 100, who runs the campaigns). Fails on a non-zero exit.
 */
export async function createUsers(env: Env, admin = 'boss'): Promise<void> {
  for (const args of [
    ['--username', admin, '--password', `${admin}-pw`, '--admin'],
    ['--username', 'alice', '--password', 'alice-pw', '--balance', '100'],
  ]) {
    const made = await run(['user', 'create', ...args], env);
    assert.equal(made.code, 0, made.stderr);
  }
}

/** A JSON request to a real server as one user: the answer's body; fails on a status other than 2xx. */
export type Api = (method: string, url: string, body?: unknown) => Promise<any>;

/** An Api of the server at `base` as the user of `auth`. */
export function apiClient(base: string, auth: string): Api {
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${url} → ${res.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Every event id of the log that `api`'s user may see, in the log's order, as the API pages it. */
export async function logIds(api: Api): Promise<string[]> {
  const ids: string[] = [];
  for (let url: string | null = '/rest-api/events/?format=json&after=0&limit=1000'; url; ) {
    const page: { next: string | null; results: { id: string }[] } = await api('GET', url);
    ids.push(...page.results.map((e) => e.id));
    url = page.next && new URL(page.next).pathname + new URL(page.next).search;
  }
  return ids;
}

/**
 * A campaign on the simulator, set up through the API as a user would: a simulator gateway with
 * `gateway` settings (made by `admin`; another `driver` may be named), then as `owner` a
 * phonebook of `contacts` numbers (+1203555NNNN, or `numbers`, through /bulkcontact/), a
 * one-section survey and the campaign with `campaign`'s fields, started. Returns the campaign's id.
 */
export async function simulatorCampaign(
  admin: Api,
  owner: Api,
  opts: { name: string; contacts: number; gateway: object; campaign: object; driver?: string; numbers?: string[]; sections?: object[] },
): Promise<number> {
  const gateway = await admin('POST', '/rest-api/gateway/', { name: `${opts.name} ${Date.now()}`, driver: opts.driver ?? 'simulator', settings: opts.gateway });
  const book = await owner('POST', '/rest-api/phonebook/', { name: opts.name });
  const numbers = opts.numbers ?? Array.from({ length: opts.contacts }, (_, i) => `+1203555${String(i).padStart(4, '0')}`);
  await owner('POST', '/rest-api/bulkcontact/', { phonebook_id: String(book.id), phoneno_list: numbers.join(',') });
  const survey = await owner('POST', '/rest-api/survey-template/', { name: opts.name });
  for (const section of opts.sections ?? [{ type: 1, question: 'Hello', script: 'Hello' }]) await owner('POST', '/rest-api/section-template/', { survey: survey.url, ...section });
  const campaign = await owner('POST', '/rest-api/campaigns/', {
    name: opts.name,
    aleg_gateway: gateway.url,
    object_id: survey.id,
    phonebook: [book.url],
    status: 1,
    ...opts.campaign,
  });
  return campaign.id as number;
}

/**
 * `owner`'s calendar for appointment reminders: a calendar setting ('dentist', caller id
 * +15550000000, and `setting`'s fields: its gateways, its survey), a calendar user and a calendar.
 * Returns `alarm(body)`, which makes an event two hours on and an alarm of it (`body`: its method,
 * number …) due now: two hours and two minutes before it.
 */
export async function reminderCalendar(owner: Api, setting: object): Promise<(body: object) => Promise<{ id: number }>> {
  const made = await owner('POST', '/rest-api/calendar-setting/', { label: 'dentist', callerid: '+15550000000', ...setting });
  const person = await owner('POST', '/rest-api/calendar-user/', { username: 'front-desk', calendar_setting: made.url });
  const calendar = await owner('POST', '/rest-api/calendar/', { name: 'Chairs', user: person.url });
  return async (body) => {
    const start = new Date(Date.now() + 2 * 3600_000);
    const event = await owner('POST', '/rest-api/event/', { title: 'Check-up', start: start.toISOString(), end: new Date(start.getTime() + 1800_000).toISOString(), calendar: calendar.id });
    return owner('POST', '/rest-api/alarm/', { event: event.id, advance_notice: 7320, ...body });
  };
}
