import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dbLabel } from '../../../test/helpers.ts';
import { gatewayCli } from '../gateways/gateways.fixtures.ts';
import { findGateway } from './gateway.kind.ts';

const { cli, gatewayRow } = await gatewayCli('gateway', findGateway);

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
