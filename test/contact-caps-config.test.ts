/** The instance-wide contact caps and legal calling hours (issue 16, items 3–4): CONTACT_CAPS, CALLING_HOURS. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('CONTACT_CAPS and CALLING_HOURS', () => {
  test('off by default', () => {
    const config = loadConfig({});
    assert.equal(config.contactCaps, null);
    assert.equal(config.callingHours, null);
  });

  test('regulation_f, a JSON object, HH:MM-HH:MM', () => {
    assert.deepEqual(loadConfig({ CONTACT_CAPS: 'regulation_f' }).contactCaps, { attempts: 7, window_days: 7, quiet_days: 7, daily: null });
    assert.deepEqual(loadConfig({ CONTACT_CAPS: '{"daily": 2}' }).contactCaps, { attempts: null, window_days: null, quiet_days: null, daily: 2 });
    assert.equal(loadConfig({ CONTACT_CAPS: 'off' }).contactCaps, null);
    assert.deepEqual(loadConfig({ CALLING_HOURS: '08:00-21:00' }).callingHours, { start: '08:00', end: '21:00' });
    assert.deepEqual(loadConfig({ CALLING_HOURS: '{"start": "9:00", "end": "20:00"}' }).callingHours, { start: '09:00', end: '20:00' });
  });

  test('a bad value is one line naming the variable', () => {
    for (const [name, value] of [
      ['CONTACT_CAPS', 'always'],
      ['CONTACT_CAPS', '{"attempts": 7}'],
      ['CONTACT_CAPS', '{not json'],
      ['CALLING_HOURS', '21:00-08:00'],
      ['CALLING_HOURS', 'daytime'],
    ]) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith(name) && !err.message.includes('\n'),
        `${name}=${value}`,
      );
    }
  });
});
