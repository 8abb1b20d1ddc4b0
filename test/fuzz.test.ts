/**
 * The short fuzz run of CI (the long one is `npm run fuzz`, test/fuzz/main.ts): a few hundred
 * generated requests, with a fixed seed, against the real app over loopback HTTP, on this file's
 * database (PGlite, or PostgreSQL when TEST_DATABASE_URL is set). Any 5xx, cross-user read,
 * rejected write that changed data, or error body out of the contract's shape fails it, and the
 * failure prints each finding's minimal reproduction.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzz, summary } from './fuzz/run.ts';
import { dbLabel, testDatabase } from './helpers.ts';

const database = await testDatabase();

test(`${dbLabel}: 300 generated requests (seed 20261125) find no 5xx, no leak, no change after a rejected write`, async () => {
  const report = await fuzz({ database, requests: 300, seconds: 180, seed: 20261125, shrinkBudget: 100 });
  assert.ok(report.requests >= 100, `only ${report.requests} requests were sent`);
  assert.equal(report.findings.length, 0, summary(report));
});
