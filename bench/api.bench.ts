/**
 * npm run bench:api — autocannon (50 connections) against the real server on PostgreSQL and on
 * PGlite: a Basic-auth GET of a user, a GET of the payment list, a POST of a payment; and, in
 * the same run, a bare Fastify hello-world as the baseline. Prints req/s, p99 latency, the
 * ratio to the baseline, and the server's peak RSS.
 * Targets (PostgreSQL): authenticated detail GET ≥ 0.3 × baseline, p99 ≤ 20 ms, RSS ≤ 300 MB.
 * BENCH_SECONDS (default 10) sets each run's length; BENCH_DB=postgres or pglite runs one.
 */
import autocannon from 'autocannon';
import { backends, fmt, freePort, type Server, startProcess, startServer } from './support.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const password = 'bench-admin-password';
const auth = `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;

interface Row {
  what: string;
  reqs: number;
  p50: number;
  p99: number;
  ratio?: number;
  rss: number;
  errors: number;
}

async function load(server: Server, path: string, options: { method?: 'GET' | 'POST'; body?: string } = {}) {
  server.resetPeak();
  const result = await autocannon({
    url: `${server.base}${path}`,
    connections,
    duration: seconds,
    method: options.method ?? 'GET',
    body: options.body,
    headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  return { reqs: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: bad, rss: server.peakRssMb() };
}

const BASELINE = `
import Fastify from 'fastify';
const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

async function baseline(): Promise<Row> {
  const port = await freePort();
  const server = await startProcess(['--input-type=module', '-e', BASELINE], { PORT: String(port) }, port, '/');
  try {
    const r = await load(server, '/');
    return { what: 'baseline: bare Fastify hello-world', ...r };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  console.log(`bench:api — ${connections} connections, ${seconds} s per run, node ${process.version}`);
  const base = await baseline();
  const rows: Row[] = [base];
  for (const backend of await backends('api')) {
    const server = await startServer(backend, password);
    try {
      // A few payments so that the list has a page to show.
      for (let i = 0; i < 20; i++) {
        await fetch(`${server.base}/rest-api/payment/`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '1.5', user: '/rest-api/users/1/', description: 'seed' }),
        });
      }
      const detail = await load(server, '/rest-api/users/1/');
      rows.push({ what: `${backend.name}: GET /rest-api/users/1/ (Basic)`, ...detail, ratio: detail.reqs / base.reqs });
      const list = await load(server, '/rest-api/payment/');
      rows.push({ what: `${backend.name}: GET /rest-api/payment/`, ...list, ratio: list.reqs / base.reqs });
      const post = await load(server, '/rest-api/payment/', {
        method: 'POST',
        body: JSON.stringify({ amount: '0.01', user: '/rest-api/users/1/', description: 'bench' }),
      });
      rows.push({ what: `${backend.name}: POST /rest-api/payment/`, ...post, ratio: post.reqs / base.reqs });
    } finally {
      await server.stop();
      await backend.cleanup();
    }
  }
  console.log('');
  console.log(['what'.padEnd(46), 'req/s'.padStart(9), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'x base'.padStart(7), 'peak RSS MB'.padStart(12), 'errors'.padStart(7)].join(' '));
  for (const r of rows) {
    console.log(
      [
        r.what.padEnd(46),
        fmt(r.reqs).padStart(9),
        fmt(r.p50, 1).padStart(8),
        fmt(r.p99, 1).padStart(8),
        (r.ratio === undefined ? '1.00' : fmt(r.ratio, 2)).padStart(7),
        fmt(r.rss, 0).padStart(12),
        String(r.errors).padStart(7),
      ].join(' '),
    );
  }
  const pgDetail = rows.find((r) => r.what.startsWith('PostgreSQL: GET /rest-api/users'));
  if (pgDetail) {
    const ok = (pgDetail.ratio ?? 0) >= 0.3 && pgDetail.p99 <= 20 && Math.max(...rows.filter((r) => r.what.startsWith('PostgreSQL')).map((r) => r.rss)) <= 300;
    console.log(`\ntarget (PostgreSQL detail GET ≥ 0.3 × baseline, p99 ≤ 20 ms, RSS ≤ 300 MB): ${ok ? 'met' : 'NOT met'}`);
  }
}

await main();
