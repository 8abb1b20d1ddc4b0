/**
 * What bench:engine and bench:events share: the bench user's material written set-based (a
 * simulator gateway with zero ring and talk time, a one-section survey, phonebooks of generated
 * numbers, campaigns that end when done), and a campaign started through the API, run to END
 * and checked: every call recorded and billed to the cent.
 */
import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../src/db/database.ts';
import { type Backend, type Server, startWorker, type Worker } from './support.ts';

export const password = 'bench-user-password';
export const auth = `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`;
export const startBalance = 1_000_000_000;
/** Zero ring and talk time; every outcome is immediate (no ring-outs, which wait calltimeout). */
export const simulator = { answer_rate: 0.8, busy_rate: 0.1, noanswer_rate: 0, machine_rate: 0, ring_seconds: [0, 0], talk_seconds: [0, 0] };

export interface Fixture {
  userId: number;
  gatewayId: number;
  surveyId: number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const one = async <T>(db: Database, query: ReturnType<typeof sql>) => (await queryRows<T>(db.db, query))[0];

export async function fixture(db: Database): Promise<Fixture> {
  const user = await one<{ id: number }>(db, sql`update users set balance = ${startBalance}, call_rate = 0.01 where username = 'bench' returning id`);
  const gw = await one<{ id: number }>(
    db,
    sql`insert into gateways (name, driver, settings) values ('bench', 'simulator', ${JSON.stringify(simulator)}::jsonb) returning id`,
  );
  const survey = await one<{ id: number }>(db, sql`insert into survey_templates (name, user_id) values ('bench', ${user.id}) returning id`);
  await db.db.execute(sql`insert into section_templates (survey_id, "order", question, script) values (${survey.id}, 1, 'Hello', 'Hello')`);
  return { userId: user.id, gatewayId: gw.id, surveyId: survey.id };
}

/** A phonebook of `n` contacts +1<area><7 digits>, written set-based. */
export async function phonebook(db: Database, f: Fixture, area: string, n: number): Promise<number> {
  const book = await one<{ id: number }>(db, sql`insert into phonebooks (name, user_id) values (${`bench ${area}`}, ${f.userId}) returning id`);
  await db.db.execute(sql`insert into contacts (phonebook_id, contact, phone_key, full_name)
    select ${book.id}, '+1' || ${area} || lpad(g::text, 7, '0'), '1' || ${area} || lpad(g::text, 7, '0'), 'Contact ' || g
    from generate_series(1, ${n}) g`);
  return book.id;
}

/** A NEW campaign on `book` that ends when every subscriber is done. */
export async function campaign(db: Database, f: Fixture, book: number, name: string, frequency: number): Promise<number> {
  const c = await one<{ id: number }>(
    db,
    sql`insert into campaigns (campaign_code, name, user_id, callerid, aleg_gateway_id, survey_id, frequency, max_aleg, maxretry,
          calltimeout, startingdate, expirationdate, end_when_done)
        values (${name.toUpperCase()}, ${name}, ${f.userId}, '5550100', ${f.gatewayId}, ${f.surveyId}, ${frequency}, 0, 0,
          45, now() - interval '1 day', now() + interval '2 days', true) returning id`,
  );
  await db.db.execute(sql`insert into campaign_phonebooks (campaign_id, phonebook_id) values (${c.id}, ${book})`);
  return c.id;
}

/** A JSON request to the server's API as the bench user. */
export function apiRequest(server: Server, method: string, path: string, body: object): Promise<Response> {
  return fetch(`${server.base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export async function patchStatus(server: Server, id: number, status: number): Promise<number> {
  const started = Date.now();
  const res = await apiRequest(server, 'PATCH', `/rest-api/campaigns/${id}/`, { status });
  if (res.status >= 300) throw new Error(`PATCH status=${status} answered ${res.status}: ${await res.text()}`);
  return (Date.now() - started) / 1000;
}

export async function campaignStatus(server: Server, id: number): Promise<number> {
  const res = await fetch(`${server.base}/rest-api/campaigns/${id}/`, { headers: { authorization: auth } });
  return ((await res.json()) as { status: number }).status;
}

/**
 * A new engine (`serve --role engine`), ready once it has written its heartbeat; `flags` are
 * node's (e.g. --cpu-prof). Its sessions write the event log (`on`) or not (`off`: dialer.events
 * as a connection option on its DATABASE_URL). The option reaches only this process's sessions:
 * the API server beside it writes its events (e.g. campaign.started on the campaign's PATCH)
 * whatever the run. (An ALTER DATABASE … SET reached every session opened after it, the server's
 * pooled ones too, and one of them wrote no campaign.started in a later run with the log on.)
 */
export async function startEngine(backend: Backend, db: Database, log: 'on' | 'off' = 'on', flags: string[] = []): Promise<Worker> {
  const url = new URL(backend.env.DATABASE_URL as string);
  if (log === 'off') url.searchParams.set('options', '-c dialer.events=off');
  // An engine stopped before this one left its heartbeat: it would read as this one's.
  await db.db.execute(sql`delete from engine_heartbeats`);
  return startWorker([...flags, 'bin/campaign-dialer.js', 'serve', '--role', 'engine'], { ...backend.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'warn' }, async () =>
    Boolean((await one<{ n: number }>(db, sql`select count(*)::int as n from engine_heartbeats`)).n),
  );
}

/** The least span of the sustained window (10 % to 90 % of the calls) that gives a rate: five samples. */
const SUSTAINED_MIN_MS = 5_000;

/** A campaign run to its end: its seconds, its calls/s over them, and its sustained calls/s when it has one. */
export interface CampaignRun {
  seconds: number;
  overall: number;
  sustained?: number;
}

/**
 * Waits for the campaign to END (every subscriber done); with `db`, samples the recorded calls
 * each second and gives the rate between 10 % and 90 % of them (the sustained rate), unless that
 * window is shorter than five seconds (a small campaign): then `sustained` is undefined and
 * callers use `overall`, the calls over the whole campaign's time.
 *
 * A sample is the CDR ids taken since the start (the `cdrs` sequence), read in constant time: the
 * benches run one campaign at a time, a CDR a call, so it counts the campaign's calls, give or take
 * the batch being written. (A `count(*)` of the campaign's CDRs each second cost PostgreSQL a walk
 * of every row so far, visibility checks included: ~2.4 % of a core over a 1,000,000-call campaign,
 * a growing share, spent beside the engine it measures.)
 */
export async function runToEnd(server: Server, id: number, n: number, db?: Database): Promise<CampaignRun> {
  const started = Date.now();
  const samples: { t: number; done: number }[] = [];
  const ended = async () =>
    db ? (await one<{ status: number }>(db, sql`select status from campaigns where id = ${id}`)).status === 4 : (await campaignStatus(server, id)) === 4;
  /** The CDR ids taken so far (the sequence's last value). */
  const cdrIds = async (database: Database) =>
    Number((await one<{ ids: string }>(database, sql`select coalesce(pg_sequence_last_value(pg_get_serial_sequence('cdrs', 'id')), 0)::text as ids`)).ids);
  const before = db ? await cdrIds(db) : 0;
  while (!(await ended())) {
    if (db) samples.push({ t: Date.now(), done: (await cdrIds(db)) - before });
    await sleep(1000);
  }
  const seconds = (Date.now() - started) / 1000;
  const from = samples.find((s) => s.done >= n * 0.1);
  const to = samples.find((s) => s.done >= n * 0.9);
  const sustained = from && to && to.t - from.t >= SUSTAINED_MIN_MS ? (to.done - from.done) / ((to.t - from.t) / 1000) : undefined;
  return { seconds, overall: n / seconds, sustained };
}

/** Every call of the campaign fully recorded, and billed to the cent. */
export async function check(db: Database, f: Fixture, id: number, n: number): Promise<void> {
  const r = await one<{ cdrs: number; open: number; pending: number; billed: string; spent: string }>(
    db,
    sql`select (select count(*)::int from cdrs where campaign_id = ${id}) as cdrs,
          (select count(*)::int from callrequests where campaign_id = ${id} and status = 7) as open,
          (select count(*)::int from subscribers where campaign_id = ${id} and status in (1, 2, 6)) as pending,
          (select coalesce(sum(call_cost), 0)::text from cdrs where user_id = ${f.userId}) as billed,
          (select (${startBalance} - balance)::text from users where id = ${f.userId}) as spent`,
  );
  if (r.cdrs !== n || r.open !== 0 || r.pending !== 0 || Number(r.billed) !== Number(r.spent)) {
    throw new Error(`campaign ${id} not fully recorded: ${JSON.stringify(r)} of ${n}`);
  }
}

interface WalState {
  lsn: string;
  checkpoints: number;
  commits: number;
  syncs: number;
}

/**
 * Where the WAL is, how many checkpoints ran, and how many transactions committed in this
 * database and WAL flushes (fsync) the server made: what a timed write cost beyond its own time,
 * and in how many commits and flushes it was made (a campaign whose calls commit in smaller
 * groups pays more a call for each).
 */
export async function walState(db: Database): Promise<WalState> {
  return one<WalState>(
    db,
    sql`select pg_current_wal_lsn()::text as lsn, (select (checkpoints_timed + checkpoints_req)::int from pg_stat_bgwriter) as checkpoints,
          (select xact_commit::float8 from pg_stat_database where datname = current_database()) as commits,
          (select wal_sync::float8 from pg_stat_wal) as syncs`,
  );
}

/** A WAL position ("16/B374D848") as a byte offset. */
const lsnBytes = (lsn: string) => {
  const [hi, lo] = lsn.split('/');
  return Number((BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`));
};

export async function walSince(db: Database, before: WalState): Promise<{ mb: number; checkpoints: number; commits: number; syncs: number }> {
  const now = await walState(db);
  return {
    mb: (lsnBytes(now.lsn) - lsnBytes(before.lsn)) / 1e6,
    checkpoints: now.checkpoints - before.checkpoints,
    commits: now.commits - before.commits,
    syncs: now.syncs - before.syncs,
  };
}
