/**
 * npm run fuzz — the API fuzzer (test/fuzz/): the real app on a fresh database (in-memory
 * PGlite; PostgreSQL when FUZZ_DATABASE_URL or TEST_DATABASE_URL is set), on 127.0.0.1 only.
 * FUZZ_REQUESTS (default 2000) and FUZZ_SECONDS (default 600) bound the run; FUZZ_SEED replays
 * one (printed at the start); FUZZ_TRACE=1 prints every request; Ctrl-C stops early, with the
 * report. Exits 1 when anything was found, printing a minimal reproduction of each.
 */
import crypto from 'node:crypto';
import { freshDatabase } from './target.ts';
import { fuzz, summary } from './run.ts';

const postgresUrl = process.env.FUZZ_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
// freshPostgresDatabase (test/helpers.ts) makes its database next to TEST_DATABASE_URL's.
if (postgresUrl) process.env.TEST_DATABASE_URL = postgresUrl;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : crypto.randomInt(2 ** 31);
const requests = Number(process.env.FUZZ_REQUESTS ?? 2000);
const seconds = Number(process.env.FUZZ_SECONDS ?? 600);
console.log(`fuzz: seed ${seed} (replay with FUZZ_SEED=${seed}), ${requests} requests or ${seconds} s, ${postgresUrl ? 'PostgreSQL' : 'PGlite'}`);

// Ctrl-C ends the run early, still with its report; a second one exits at once.
const stop = new AbortController();
process.once('SIGINT', () => {
  console.log('fuzz: stopping (Ctrl-C again to quit at once)');
  stop.abort();
  process.once('SIGINT', () => process.exit(130));
});

const { database, drop } = await freshDatabase(Boolean(postgresUrl));
try {
  const report = await fuzz({ database, requests, seconds, seed, log: (line) => console.log(line), trace: process.env.FUZZ_TRACE === '1', signal: stop.signal });
  console.log(summary(report));
  process.exitCode = report.findings.length ? 1 : 0;
} finally {
  await database.close();
  await drop();
}
