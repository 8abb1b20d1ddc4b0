/**
 * npm run bench:import — a CSV of BENCH_ROWS contacts (default 1,000,000) imported through
 * POST /rest-api/phonebook/<id>/import/ of the real server, then exported back through
 * GET …/export/, on PostgreSQL and on PGlite. Prints rows/s and the server's peak RSS growth,
 * and, in the same run, the baseline: a raw COPY of the same file without our server
 * (pg-copy-streams on PostgreSQL, COPY FROM '/dev/blob' in PGlite).
 * Targets: 1,000,000 contacts in ≤ 10 s on PostgreSQL, ≤ 40 s on PGlite; RSS growth ≤ 150 MB.
 * BENCH_DB=postgres or pglite runs one. BENCH_NATIONAL=1 writes the numbers nationally
 * ((203) 555-0000 style, without +) and serves with DEFAULT_COUNTRY=US: every row's key is then
 * parsed (src/http/phone.ts), the import's costliest case.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { backends, benchDatabase, cli, fmt, type Server, startServer } from './support.ts';

const rows = Number(process.env.BENCH_ROWS ?? 1_000_000);
const national = process.env.BENCH_NATIONAL === '1';
const password = 'bench-user-password';
const auth = `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`;
// Shaped like contacts (a serial key, an index on the number), so the baseline pays the same
// index upkeep and shows how much memory the database itself takes for a million rows.
const BASELINE_TABLE = `create table bench_baseline (id serial primary key, contact varchar(21), full_name varchar(200), city text);
  create index on bench_baseline (contact)`;
const BASELINE_COPY = 'copy bench_baseline (contact, full_name, city)';

/** Writes the CSV: a header, then one contact per line with two extra columns. */
async function writeCsv(file: string): Promise<number> {
  const out = fs.createWriteStream(file);
  out.write('contact,full_name,city\n');
  for (let i = 0; i < rows; i += 10_000) {
    const lines: string[] = [];
    for (let j = i; j < Math.min(rows, i + 10_000); j++) lines.push(`${national ? '203' : '+1203'}${String(j).padStart(7, '0')},Contact ${j},City ${j % 100}\n`);
    if (!out.write(lines.join(''))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return fs.statSync(file).size;
}

async function baselinePostgres(file: string): Promise<number> {
  const db = await benchDatabase('import_baseline');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(BASELINE_TABLE);
    const started = Date.now();
    await pipeline(fs.createReadStream(file), client.query(copyFrom(`${BASELINE_COPY} from stdin with (format csv, header true)`)));
    return (Date.now() - started) / 1000;
  } finally {
    await client.end();
    await db.drop();
  }
}

/** In this process: the time, and the RSS growth of PGlite itself (its buffer cache fills). */
async function baselinePglite(file: string): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-bench-import-baseline-'));
  const pglite = new PGlite(path.join(dir, 'pglite'));
  try {
    await pglite.exec(BASELINE_TABLE);
    const blob = new Blob([fs.readFileSync(file)]);
    const rss = () => process.memoryUsage().rss / 1024 / 1024;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    const started = Date.now();
    await pglite.query(`${BASELINE_COPY} from '/dev/blob' with (format csv, header true)`, [], { blob });
    clearInterval(sampler);
    console.log(`PGlite: baseline RSS growth of the embedded database itself ${fmt(Math.max(peak, rss()) - before)} MB`);
    return (Date.now() - started) / 1000;
  } finally {
    await pglite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function request(server: Server, method: string, urlPath: string, headers: Record<string, string> = {}) {
  return http.request(`${server.base}${urlPath}`, { method, headers: { authorization: auth, ...headers } });
}

function answer(req: http.ClientRequest, sink?: (chunk: Buffer) => void): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => (sink ? sink(chunk) : parts.push(chunk)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
      res.on('error', reject);
    });
  });
}

async function createPhonebook(server: Server): Promise<number> {
  const req = request(server, 'POST', '/rest-api/phonebook/', { 'content-type': 'application/json' });
  const done = answer(req);
  req.end(JSON.stringify({ name: 'bench' }));
  const res = await done;
  if (res.status !== 201) throw new Error(`phonebook create answered ${res.status}: ${res.body}`);
  return Number(/\/(\d+)\/?$/.exec(JSON.parse(res.body).url)?.[1]);
}

/** Streams the file as multipart/form-data to the import route. */
async function importFile(server: Server, phonebook: number, file: string) {
  const boundary = '----campaign-dialer-bench';
  const req = request(server, 'POST', `/rest-api/phonebook/${phonebook}/import/`, {
    'content-type': `multipart/form-data; boundary=${boundary}`,
  });
  const done = answer(req);
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  await pipeline(fs.createReadStream(file), req, { end: false });
  req.end(`\r\n--${boundary}--\r\n`);
  const res = await done;
  if (res.status !== 201) throw new Error(`import answered ${res.status}: ${res.body.slice(0, 500)}`);
  return JSON.parse(res.body) as { imported: number; rejected_count: number };
}

async function exportFile(server: Server, phonebook: number): Promise<number> {
  let lines = 0;
  const req = request(server, 'GET', `/rest-api/phonebook/${phonebook}/export/`);
  const done = answer(req, (chunk) => {
    for (const byte of chunk) if (byte === 10) lines++;
  });
  req.end();
  const res = await done;
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  return lines - 1;
}

async function measure<T>(server: Server, work: () => Promise<T>) {
  const before = server.rssMb();
  server.resetPeak();
  const started = Date.now();
  const result = await work();
  const seconds = (Date.now() - started) / 1000;
  return { result, seconds, growth: server.peakRssMb() - before };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-bench-import-'));
  const file = path.join(dir, 'contacts.csv');
  try {
    const size = await writeCsv(file);
    console.log(`bench:import — ${fmt(rows)} contacts${national ? ' written nationally, DEFAULT_COUNTRY=US' : ''}, ${fmt(size / 1024 / 1024, 1)} MB CSV, node ${process.version}`);
    for (const backend of await backends('import')) {
      try {
        const baseline = backend.name === 'PostgreSQL' ? await baselinePostgres(file) : await baselinePglite(file);
        console.log(`${backend.name}: baseline raw COPY of the file ${fmt(baseline, 1)} s (${fmt(rows / baseline)} rows/s)`);
        cli(['user', 'create', '--username', 'bench', '--password', password], backend.env);
        const server = await startServer(backend, 'bench-admin-password', national ? { DEFAULT_COUNTRY: 'US' } : {});
        try {
          const phonebook = await createPhonebook(server);
          const imp = await measure(server, () => importFile(server, phonebook, file));
          if (imp.result.imported !== rows) throw new Error(`imported ${imp.result.imported} of ${rows}: ${JSON.stringify(imp.result)}`);
          console.log(
            `${backend.name}: import ${fmt(imp.seconds, 1)} s (${fmt(rows / imp.seconds)} rows/s, ` +
              `${fmt(imp.seconds / baseline, 1)} × baseline), peak RSS growth ${fmt(imp.growth)} MB`,
          );
          const exp = await measure(server, () => exportFile(server, phonebook));
          if (exp.result !== rows) throw new Error(`exported ${exp.result} of ${rows} rows`);
          console.log(`${backend.name}: export ${fmt(exp.seconds, 1)} s (${fmt(rows / exp.seconds)} rows/s), peak RSS growth ${fmt(exp.growth)} MB`);
        } finally {
          await server.stop();
        }
      } finally {
        await backend.cleanup();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
