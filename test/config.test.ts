/** Configuration (issue 2 §2): defaults, and one clear line naming the variable for a bad value. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

const bin = path.resolve('bin/campaign-dialer.js');

describe('configuration', () => {
  test('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    const expected = {
      port: 8000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: undefined,
      databaseRetrySeconds: 60,
      timeZone: 'UTC',
      logLevel: 'info',
      trustProxy: false,
      maxUploadBytes: 20 * 1024 * 1024,
      billingIncrement: 6,
      adminPassword: undefined,
      sessionHours: 12,
      engineStaleSeconds: 15,
      smtpUrl: undefined,
      mailFrom: 'reminders@localhost',
    };
    // Other settings may be added; the documented ones keep these defaults.
    const actual = Object.fromEntries(Object.keys(expected).map((k) => [k, config[k as keyof typeof config]]));
    assert.deepEqual(actual, expected);
    assert.ok(Object.isFrozen(config));
  });

  test('each setting is read from its variable', () => {
    const config = loadConfig({
      PORT: '9001',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/dialer',
      DATABASE_URL: 'postgres://u:p@db:5432/dialer',
      DATABASE_RETRY_SECONDS: '5',
      TIME_ZONE: 'Europe/Paris',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      MAX_UPLOAD_MB: '5',
      BILLING_INCREMENT: '0',
      DIALER_ADMIN_PASSWORD: 'secret',
      SESSION_HOURS: '8',
      ENGINE_STALE_SECONDS: '45',
    });
    assert.equal(config.port, 9001);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.dataDir, '/var/lib/dialer');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/dialer');
    assert.equal(config.databaseRetrySeconds, 5);
    assert.equal(config.timeZone, 'Europe/Paris');
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.trustProxy, true);
    assert.equal(config.maxUploadBytes, 5 * 1024 * 1024);
    assert.equal(config.billingIncrement, 0);
    assert.equal(config.adminPassword, 'secret');
    assert.equal(config.sessionHours, 8);
    assert.equal(config.engineStaleSeconds, 45);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, '10.0.0.0/8, 127.0.0.1');
    assert.equal(loadConfig({ TRUST_PROXY: 'no' }).trustProxy, false);
    assert.equal(loadConfig({ SMTP_URL: 'smtp://relay.example:2525' }).smtpUrl, 'smtp://relay.example:2525');
    assert.equal(loadConfig({ MAIL_FROM: 'clinic@example.com' }).mailFrom, 'clinic@example.com');
  });

  test('a bad value throws a ConfigError: one line naming the variable', () => {
    const bad: Array<[string, string]> = [
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '-1'],
      ['DATABASE_URL', 'not a url'],
      ['DATABASE_URL', 'mysql://db/dialer'],
      ['DATABASE_RETRY_SECONDS', 'soon'],
      ['TIME_ZONE', 'Mars/Olympus'],
      ['LOG_LEVEL', 'loud'],
      ['TRUST_PROXY', 'maybe'],
      ['MAX_UPLOAD_MB', '0'],
      ['MAX_UPLOAD_MB', 'lots'],
      ['BILLING_INCREMENT', '-6'],
      ['BILLING_INCREMENT', '1.5'],
      ['SESSION_HOURS', '0'],
      ['SESSION_HOURS', '1.5'],
      ['SESSION_HOURS', '9000'],
      ['ENGINE_STALE_SECONDS', '5'],
      ['ENGINE_STALE_SECONDS', 'long'],
      ['SMTP_URL', 'smtps://relay.example'],
      ['SMTP_URL', 'smtp://user:pw@relay.example'],
    ];
    for (const [name, value] of bad) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => {
          assert.ok(err instanceof ConfigError, `${name}=${value}: ${err}`);
          assert.ok(err.message.includes(name), `${name}=${value}: "${err.message}" does not name it`);
          assert.ok(err.message.includes(value), `${name}=${value}: "${err.message}" does not show the value`);
          assert.ok(!err.message.includes('\n'), `${name}=${value}: more than one line`);
          return true;
        },
      );
    }
  });

  test('the CLI with a bad PORT exits 1 with one clear line on stderr', () => {
    const run = spawnSync(process.execPath, [bin, 'serve'], {
      env: { ...process.env, PORT: 'abc', DATA_DIR: '/nonexistent/never-created', LOG_LEVEL: 'info' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 1, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0], /^campaign-dialer: PORT .*"abc"/);
    assert.equal(run.stdout, '');
  });
});
