import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../db/database.ts';
import { dbLabel, freshPostgresDatabase, onPostgres } from '../../../test/helpers.ts';
import { findGateway, type GatewayRow } from './gateway.kind.ts';
import { withoutUsingLine } from '../../../test/cli-process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-cli-'));
const postgres = onPostgres ? await freshPostgresDatabase() : undefined;
const env = {
  ...process.env,
  LOG_LEVEL: 'silent',
  ...(postgres ? { DATABASE_URL: postgres.url } : { DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '' }),
};
after(async () => {
  await postgres?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/campaign-dialer.js', 'gateway', 'create', ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr: withoutUsingLine(stderr) }),
    );
  });
}

/** Reads a gateway from the CLI's database (PGlite allows one process at a time: only between runs). */
async function gatewayRow(id: number): Promise<GatewayRow | undefined> {
  const database = await openDatabase(postgres ? { url: postgres.url } : { dataDir: path.join(dir, 'data') });
  try {
    return await findGateway(database.db, id);
  } finally {
    await database.close();
  }
}

describe(`campaign-dialer gateway create (${dbLabel})`, () => {
  test('creates a gateway with its settings and prints its id; the same name again is an error', async () => {
    const run = await cli('--name', 'sim-1', '--driver', 'simulator', '--settings', '{"answer_rate": 0.9, "seed": 5}', '--maximum-call', '30', '--gateways', 'sim/');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\d+\n$/);
    const row = await gatewayRow(Number(run.stdout));
    assert.deepEqual(
      [row?.name, row?.driver, row?.settings, row?.maximum_call, row?.gateways, row?.status],
      ['sim-1', 'simulator', { answer_rate: 0.9, seed: 5 }, 30, 'sim/', 1],
    );
    const duplicate = await cli('--name', 'sim-1');
    assert.equal(duplicate.code, 1, duplicate.stdout);
    assert.equal(duplicate.stderr, 'campaign-dialer: invalid gateway: name: gateway with this name already exists.\n');
  });

  test('invalid JSON, invalid settings or an unknown driver are one error line and exit 1', async () => {
    const json = await cli('--name', 'sim-2', '--settings', '{answer_rate:');
    assert.equal(json.code, 1, json.stdout);
    assert.match(json.stderr, /^campaign-dialer: --settings is not valid JSON: .*\n$/);
    const settings = await cli('--name', 'sim-2', '--settings', '{"answer_rate": 7}');
    assert.equal(settings.code, 1, settings.stdout);
    assert.equal(settings.stderr, 'campaign-dialer: invalid gateway: settings: answer_rate: must be a number between 0 and 1.\n');
    const driver = await cli('--name', 'sim-2', '--driver', 'pigeon');
    assert.equal(driver.code, 1, driver.stdout);
    assert.match(driver.stderr, /^campaign-dialer: invalid gateway: driver: Unknown driver "pigeon"/);
  });
});
