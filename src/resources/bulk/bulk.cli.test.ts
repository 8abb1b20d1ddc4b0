import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../db/database.ts';
import type { Db } from '../../db/database.ts';
import { makeDncList, makePhonebook } from '../../../test/factories.ts';
import { dbLabel, freshPostgresDatabase, onPostgres } from '../../../test/helpers.ts';
import { contactsOf, dncNumbersOf } from './bulk.fixtures.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-cli-'));
const postgres = onPostgres ? await freshPostgresDatabase() : undefined;
const dataDir = path.join(dir, 'data');
const env = { ...process.env, LOG_LEVEL: 'silent', ...(postgres ? { DATABASE_URL: postgres.url } : { DATA_DIR: dataDir, DATABASE_URL: '' }) };
after(async () => {
  await postgres?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/campaign-dialer.js', ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Opens the database the CLI uses (PGlite allows one process at a time, so only between runs). */
async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const database = await openDatabase(postgres ? { url: postgres.url } : { dataDir });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

function csvFile(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const created = await cli('user', 'create', '--username', 'bulkcli', '--password', 'secret-pw');
const userId = Number(/\(id (\d+)/.exec(created.stdout)?.[1]);
const [phonebook, dnc] = await withDb(async (db) => [await makePhonebook(db, userId), await makeDncList(db, userId)]);

describe(`campaign-dialer import (${dbLabel})`, () => {
  test('import contacts loads the file, skips duplicates and prints the rejected lines', async () => {
    assert.ok(userId > 0, created.stderr);
    const file = csvFile('contacts.csv', 'contact,full_name,city\n2035550101,Ann,Paris\nnope,Bob,Rome\n2035550101,Ann again,Paris\n');
    const run = await cli('import', 'contacts', file, '--phonebook', String(phonebook), '--skip-duplicates');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /imported 1 rows, skipped 1 duplicates, rejected 1 rows/);
    assert.match(run.stdout, /line 3: contact: Enter a valid phone number\./);
    const rows = await withDb((db) => contactsOf(db, phonebook));
    assert.deepEqual(rows, [{ contact: '2035550101', full_name: 'Ann', status: 1, additional_vars: { city: 'Paris' } }]);
  });

  test('import dnc loads a single column of numbers', async () => {
    const run = await cli('import', 'dnc', csvFile('dnc.csv', '2035550101\n+44 20 3555 0102\n'), '--dnc', String(dnc));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /imported 2 rows/);
    assert.deepEqual(await withDb((db) => dncNumbersOf(db, dnc)), ['2035550101', '+442035550102']);
  });

  test('a file that is not CSV, or a missing phonebook, is one error line and exit 1', async () => {
    const binary = await cli('import', 'contacts', csvFile('x.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0])), '--phonebook', String(phonebook));
    assert.equal(binary.code, 1, binary.stdout);
    // The first line names the database the command uses (src/cli-support.ts); then the one error line.
    const [using, error, ...rest] = binary.stderr.split('\n');
    assert.match(using, /^campaign-dialer: using /, binary.stderr);
    assert.match(error, /^campaign-dialer: .*x\.png: The file is not a CSV file/, binary.stderr);
    assert.deepEqual(rest, [''], binary.stderr);
    const missing = await cli('import', 'contacts', csvFile('ok.csv', 'contact\n2035550199\n'), '--phonebook', '999999');
    assert.equal(missing.code, 1, missing.stdout);
    assert.match(missing.stderr, /there is no phonebook with id 999999/);
    assert.equal((await withDb((db) => contactsOf(db, phonebook))).length, 1);
  });
});
