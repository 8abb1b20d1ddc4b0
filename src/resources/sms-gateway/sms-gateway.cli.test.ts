import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dbLabel } from '../../../test/helpers.ts';
import { gatewayCli } from '../gateways/gateways.fixtures.ts';
import { findSmsGateway } from './sms-gateway.kind.ts';

const { cli, gatewayRow } = await gatewayCli('sms-gateway', findSmsGateway);

const kannel = { sendsms_url: 'http://127.0.0.1:13013/cgi-bin/sendsms', username: 'u', password: 'p', callback_base_url: 'http://127.0.0.1:8000' };

describe(`campaign-dialer sms-gateway create (${dbLabel})`, () => {
  test('creates an SMS gateway with its settings and a callback secret, and prints its id; the same name again is an error', async () => {
    const run = await cli('--name', 'kannel-1', '--driver', 'kannel', '--settings', JSON.stringify(kannel), '--description', 'main');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\d+\n$/);
    const row = await gatewayRow(Number(run.stdout));
    assert.deepEqual([row?.name, row?.driver, row?.settings, row?.description, row?.status], ['kannel-1', 'kannel', kannel, 'main', 1]);
    assert.match(row?.callback_secret ?? '', /^[A-Za-z0-9_-]{40,}$/);
    const duplicate = await cli('--name', 'kannel-1');
    assert.equal(duplicate.code, 1, duplicate.stdout);
    assert.equal(duplicate.stderr, 'campaign-dialer: invalid sms gateway: name: sms gateway with this name already exists.\n');
  });

  test('invalid JSON, invalid settings or an unknown driver are one error line and exit 1', async () => {
    const json = await cli('--name', 'sms-2', '--settings', '{seed:');
    assert.equal(json.code, 1, json.stdout);
    assert.match(json.stderr, /^campaign-dialer: --settings is not valid JSON: .*\n$/);
    const settings = await cli('--name', 'sms-2', '--driver', 'kannel', '--settings', '{"username": "u"}');
    assert.equal(settings.code, 1, settings.stdout);
    assert.equal(
      settings.stderr,
      'campaign-dialer: invalid sms gateway: settings: sendsms_url: this setting is required by the kannel driver. ' +
        'password: this setting is required by the kannel driver. callback_base_url: this setting is required by the kannel driver.\n',
    );
    const driver = await cli('--name', 'sms-2', '--driver', 'pigeon');
    assert.equal(driver.code, 1, driver.stdout);
    assert.match(driver.stderr, /^campaign-dialer: invalid sms gateway: driver: Unknown driver "pigeon"/);
  });
});
