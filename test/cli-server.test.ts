/**
 * CLI commands while a server runs (issue 11 §1). On PGlite the server holds the embedded
 * database, and the CLI hands its commands over DATA_DIR/control.sock; on PostgreSQL the CLI
 * opens its own connection beside the server. Real processes, real HTTP.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Env, freshEnv as freshServerEnv, request, run, type Run, type Server, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, onPostgres } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-cli-server-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const adminAuth = basic('admin', 'admin-pw');

/** The lines of stderr, checking that the first says which database the command used. */
function usingLine(r: Run, expected: RegExp): string[] {
  const [first, ...rest] = r.stderr.trimEnd().split('\n');
  assert.match(first, expected, r.stderr);
  return rest;
}

const freshEnv = (name: string) => freshServerEnv(path.join(root, name));

/** A CSV of `rows` contacts. */
function contactsCsv(file: string, rows: number): void {
  const lines = ['contact,full_name'];
  for (let i = 0; i < rows; i++) lines.push(`+1203555${String(i).padStart(7, '0')},Person ${i}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

if (!onPostgres) {
  describe(`CLI commands while serve holds the embedded database (${dbLabel})`, () => {
    // One server for the tests that do not stop it (a first start migrates: slow on a loaded machine).
    let env: Env;
    let server: Server;
    let using: RegExp;
    const otherDir = path.join(root, 'other-dir');
    before(async () => {
      env = await freshEnv('forward');
      // Migrated once, then copied for the CLI on another DATA_DIR: migrating a new database
      // takes a minute on a loaded machine, and a test file has a time budget.
      const migrated = await run(['migrate'], env);
      assert.equal(migrated.code, 0, migrated.stderr);
      fs.cpSync(env.DATA_DIR as string, otherDir, { recursive: true });
      server = await startServe(env);
      using = new RegExp(`^campaign-dialer: using the embedded database in ${env.DATA_DIR} \\(server pid ${server.child.pid}\\)$`);
    });

    test('user, token, queue, gateway, sms-gateway and import run through the server, which says so', async () => {
      const socket = path.join(env.DATA_DIR as string, 'control.sock');
      assert.equal(fs.statSync(socket).mode & 0o777, 0o600, 'the control socket is owner-only');

      const user = await run(['user', 'create', '--username', 'alice', '--password', 'alice-pw', '--balance', '10'], env);
      assert.equal(user.code, 0, user.stderr);
      assert.match(user.stdout, /^created user alice \(id \d+\)\n$/);
      assert.deepEqual(usingLine(user, using), []);

      // A relative file name is read from the CLI's directory, not the server's.
      const phonebook = await request(server, 'POST', '/rest-api/phonebook/', basic('alice', 'alice-pw'), { name: 'Leads' });
      assert.equal(phonebook.status, 201, JSON.stringify(phonebook.body));
      const work = path.join(root, 'work');
      fs.mkdirSync(work);
      contactsCsv(path.join(work, 'leads.csv'), 3);

      // At once: the server runs several commands side by side (and a loaded machine is quicker so).
      const [token, queue, gateway, smsGateway, imported] = await Promise.all([
        run(['token', 'create', '--username', 'alice'], env),
        run(['queue', 'create', '--name', 'Support', '--manager', 'alice'], env),
        run(['gateway', 'create', '--name', 'carrier'], env),
        run(['sms-gateway', 'create', '--name', 'texts'], env),
        run(['import', 'contacts', 'leads.csv', '--phonebook', String(phonebook.body.id)], env, work),
      ]);
      assert.equal(token.code, 0, token.stderr);
      const me = await request(server, 'GET', '/rest-api/users/', `Token ${token.stdout.trim()}`);
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.results[0].username, 'alice');

      assert.equal(queue.code, 0, queue.stderr);
      const queues = await request(server, 'GET', '/rest-api/queue/', basic('alice', 'alice-pw'));
      assert.deepEqual(queues.body.results.map((q: { name: string }) => q.name), ['Support']);

      assert.equal(gateway.code, 0, gateway.stderr);
      const readGateway = await request(server, 'GET', `/rest-api/gateway/${gateway.stdout.trim()}/`, adminAuth);
      assert.equal(readGateway.body.name, 'carrier', JSON.stringify(readGateway.body));
      assert.equal(smsGateway.code, 0, smsGateway.stderr);
      const readSms = await request(server, 'GET', `/rest-api/sms-gateway/${smsGateway.stdout.trim()}/`, adminAuth);
      assert.equal(readSms.body.name, 'texts', JSON.stringify(readSms.body));

      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported 3 rows, skipped 0 duplicates, rejected 0 rows/);
      assert.deepEqual(usingLine(imported, using), []);
      const contacts = await request(server, 'GET', `/rest-api/contact/?phonebook_id=${phonebook.body.id}`, basic('alice', 'alice-pw'));
      assert.equal(contacts.body.count, 3, JSON.stringify(contacts.body));

      // Revoking and deactivating through the server take effect there at once.
      const key = token.stdout.trim();
      const [revoke, deactivate] = await Promise.all([run(['token', 'revoke', key], env), run(['user', 'deactivate', 'alice'], env)]);
      assert.equal(revoke.code, 0, revoke.stderr);
      assert.match(revoke.stdout, /^revoked 1 token with prefix \w+\n$/);
      assert.equal((await request(server, 'GET', '/rest-api/users/', `Token ${key}`)).status, 401);
      assert.equal(deactivate.code, 0, deactivate.stderr);
      assert.equal((await request(server, 'GET', '/rest-api/users/', basic('alice', 'alice-pw'))).status, 401);
    });

    test('through the server, errors stay one line with a non-zero exit; usage errors too; migrate runs nothing', async () => {
      const [unknown, missingFile, usage, help, migrate] = await Promise.all([
        run(['user', 'update', 'nobody-here', '--admin'], env),
        run(['import', 'contacts', 'no-such.csv', '--phonebook', '1'], env, root),
        run(['queue', 'create', '--name', 'Q'], env),
        run(['user', 'create', '--help'], env),
        run(['migrate'], env),
      ]);
      assert.equal(unknown.code, 1);
      assert.deepEqual(usingLine(unknown, using), ['campaign-dialer: no user "nobody-here"']);
      assert.equal(missingFile.code, 1);
      assert.match(missingFile.stderr, /^campaign-dialer: cannot read no-such\.csv: ENOENT.*\n$/);
      assert.equal(usage.code, 1);
      assert.match(usage.stderr, /^error: required option '--manager <username>' not specified\n/);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /--username/);
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(migrate.stdout, /^database is up to date \(the server running on .* applied the migrations when it started\)\n$/);
    });

    test('a CLI on another DATA_DIR opens its own database and says so; SIGTERM removes the control socket', async () => {
      const own = await run(['user', 'create', '--username', 'zoe', '--password', 'zoe-pw'], { DATA_DIR: otherDir });
      assert.equal(own.code, 0, own.stderr);
      assert.deepEqual(usingLine(own, new RegExp(`^campaign-dialer: using the embedded database in ${otherDir} \\(no server running\\)$`)), []);
      // zoe is in the other database, not the server's.
      assert.equal((await request(server, 'GET', '/rest-api/users/', basic('zoe', 'zoe-pw'))).status, 401);

      assert.equal(await stop(server), 0, server.output());
      assert.ok(!fs.existsSync(path.join(env.DATA_DIR as string, 'control.sock')), 'serve left its control socket');
    });
  });
} else {
  describe(`CLI commands beside a server on PostgreSQL (${dbLabel})`, () => {
    test('serve opens no control socket; the CLI connects on its own, says so, and its token works at once', async () => {
      const env = await freshEnv('postgres');
      const server = await startServe(env);
      assert.ok(!fs.existsSync(path.join(env.DATA_DIR as string, 'control.sock')), 'a control socket on PostgreSQL');
      const db = new URL(env.DATABASE_URL as string);
      const using = new RegExp(`^campaign-dialer: using PostgreSQL at ${db.host}${db.pathname}$`);

      const user = await run(['user', 'create', '--username', 'alice', '--password', 'alice-pw'], env);
      assert.equal(user.code, 0, user.stderr);
      assert.deepEqual(usingLine(user, using), []);
      const token = await run(['token', 'create', '--username', 'alice'], env);
      assert.equal(token.code, 0, token.stderr);
      const me = await request(server, 'GET', '/rest-api/users/', `Token ${token.stdout.trim()}`);
      assert.equal(me.status, 200, JSON.stringify(me.body));
      const queue = await run(['queue', 'create', '--name', 'Support', '--manager', 'alice'], env);
      assert.equal(queue.code, 0, queue.stderr);
      const migrate = await run(['migrate'], env);
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(migrate.stdout, /^database is up to date\n$/);
      assert.equal(await stop(server), 0, server.output());
    });
  });
}
