/**
 * npm run bench:sms — an SMS campaign of BENCH_SMS (default 100,000) subscribers sent through the
 * real server (`serve --role all`: API and engine in one process) on the simulator (delay_ms 0,
 * 95 % delivered, 5 % failed reports), with no pace limit, on PostgreSQL and on PGlite. The
 * contacts are imported through the API, the campaign is created started (`status: 1`,
 * `end_when_done`), and the clock runs from that POST until the engine ENDs it. Prints
 * messages/s end to end, the server's RSS along the run (it should stay flat), and, in the same
 * run, the baseline: one set-based INSERT … SELECT of as many sms_messages rows. Delivery reports
 * trail the sends; the time they take to settle is printed too.
 * Target: ≥ 2,000 messages/s on PostgreSQL. BENCH_DB=postgres or pglite runs one.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/database.ts';
import { backends, type Backend, cli, fmt, type Server, startServer } from './support.ts';

const count = Number(process.env.BENCH_SMS ?? 100_000);
const password = 'bench-user-password';
const adminPassword = 'bench-admin-password';
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;
const userAuth = basic('bench', password);
const adminAuth = basic('benchadmin', adminPassword);

async function api(server: Server, auth: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

const idOf = (url: string) => Number(/\/(\d+)\/?$/.exec(url)?.[1]);

async function importContacts(server: Server, phonebook: number): Promise<void> {
  const lines = ['contact,full_name,debt'];
  for (let i = 0; i < count; i++) lines.push(`+1203${String(i).padStart(7, '0')},Contact ${i},${i % 500}`);
  const form = new FormData();
  form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' }), 'contacts.csv');
  const res = await fetch(`${server.base}/rest-api/phonebook/${phonebook}/import/`, { method: 'POST', headers: { authorization: userAuth }, body: form });
  if (res.status !== 201) throw new Error(`import answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

/** Runs the campaign to its END; returns seconds, RSS samples (MB) and the final progress. */
async function runCampaign(server: Server, gateway: number, phonebook: number) {
  const rss: number[] = [server.rssMb()];
  const started = performance.now();
  const campaign = await api(server, userAuth, 'POST', '/rest-api/sms-campaigns/', {
    name: 'bench',
    text_message: 'Hello {full_name}, you owe {debt} dollars. Reply STOP to opt out.',
    sms_gateway: gateway,
    phonebook: [phonebook],
    frequency: 1_000_000,
    end_when_done: true,
    status: 1,
    expirationdate: new Date(Date.now() + 86_400_000).toISOString(),
  });
  for (let last = performance.now(); ; ) {
    await new Promise((r) => setTimeout(r, 250));
    if (performance.now() - last >= 2000) {
      rss.push(server.rssMb());
      last = performance.now();
    }
    const read = await api(server, userAuth, 'GET', `/rest-api/sms-campaigns/${campaign.id}/`);
    if (read.status === 4) {
      rss.push(server.rssMb());
      const seconds = (performance.now() - started) / 1000;
      // Delivery reports trail the sends: wait until their count stops moving.
      let progress = read.progress;
      for (let reported = -1; reported !== progress.delivered + progress.failed; ) {
        reported = progress.delivered + progress.failed;
        await new Promise((r) => setTimeout(r, 1000));
        progress = (await api(server, userAuth, 'GET', `/rest-api/sms-campaigns/${campaign.id}/`)).progress;
      }
      return { seconds, reportsSeconds: (performance.now() - started) / 1000, rss, progress, id: campaign.id as number };
    }
    if (performance.now() - started > 30 * 60_000) throw new Error(`not done after 30 min: ${JSON.stringify(read.progress)}`);
  }
}

/** The baseline: one INSERT … SELECT of `count` sms_messages rows for the same campaign, without the server. */
async function baseline(backend: Backend, campaignId: number): Promise<number> {
  const database = await openDatabase(backend.env.DATABASE_URL ? { url: backend.env.DATABASE_URL } : { dataDir: backend.env.DATA_DIR });
  try {
    const started = performance.now();
    await database.db.execute(sql`insert into sms_messages (sms_campaign_id, user_id, recipient_number, content, parts, cost, status)
      select c.id, c.user_id, '+1203' || lpad(g::text, 7, '0'), 'Hello Contact ' || g || ', you owe 1 dollars. Reply STOP to opt out.', 1, 0.01, 'sent'
      from generate_series(1, ${count}) g, sms_campaigns c where c.id = ${campaignId}`);
    return (performance.now() - started) / 1000;
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  console.log(`bench:sms — ${fmt(count)} subscribers on the simulator, no pace limit, node ${process.version}`);
  for (const backend of await backends('sms')) {
    try {
      cli(['user', 'create', '--username', 'bench', '--password', password, '--balance', '1000000', '--sms-rate', '0.01'], backend.env);
      cli(['user', 'create', '--username', 'benchadmin', '--password', adminPassword, '--admin'], backend.env);
      const server = await startServer(backend, adminPassword, { LOG_LEVEL: 'error' }, 'all');
      let run: Awaited<ReturnType<typeof runCampaign>>;
      try {
        const gateway = await api(server, adminAuth, 'POST', '/rest-api/sms-gateway/', {
          name: 'bench-simulator',
          driver: 'simulator',
          settings: { delivery_rate: Number(process.env.BENCH_DLR ?? 0.95), failure_rate: Number(process.env.BENCH_DLR_FAIL ?? 0.05), delay_ms: 0, seed: 1 },
        });
        const phonebook = await api(server, userAuth, 'POST', '/rest-api/phonebook/', { name: 'bench' });
        await importContacts(server, idOf(phonebook.url));
        run = await runCampaign(server, idOf(gateway.url), idOf(phonebook.url));
      } finally {
        await server.stop();
      }
      const base = await baseline(backend, run.id);
      const p = run.progress;
      console.log(
        `${backend.name}: ${fmt(count)} messages in ${fmt(run.seconds, 1)} s = ${fmt(count / run.seconds)} messages/s end to end ` +
          `(baseline INSERT … SELECT of ${fmt(count)} rows: ${fmt(base, 2)} s = ${fmt(count / base)} rows/s; ${fmt(run.seconds / base, 1)} × baseline)`,
      );
      console.log(
        `${backend.name}: subscribers complete ${fmt(p.subscribers.complete)}, fail ${fmt(p.subscribers.fail)}; messages sent ${fmt(p.messages_sent)}, ` +
          `delivered ${fmt(p.delivered)}, failed ${fmt(p.failed)} (reports settled ${fmt(run.reportsSeconds, 1)} s after the start); total cost ${p.total_cost}`,
      );
      console.log(`${backend.name}: server RSS every ~2 s (MB): ${run.rss.map((r) => fmt(r)).join(' ')}`);
    } finally {
      await backend.cleanup();
    }
  }
}

await main();
