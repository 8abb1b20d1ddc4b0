/**
 * A server killed while it runs a CLI command for a CLI process (issue 11 §1): the CLI says so
 * and exits 1; the socket file left behind is ignored, and replaced by the next serve. Its own
 * file: a test file has a time budget, and starting servers is slow on a loaded machine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { request, run, start, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, freshPostgresDatabase, onPostgres } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-cli-killed-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const adminAuth = basic('admin', 'admin-pw');

/** A CSV of `rows` contacts. */
function contactsCsv(file: string, rows: number): void {
  const lines = ['contact,full_name'];
  for (let i = 0; i < rows; i++) lines.push(`+1203555${String(i).padStart(7, '0')},Person ${i}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

describe(`a server killed mid-command (${dbLabel})`, () => {
  if (onPostgres) {
    test('on PostgreSQL there is no control socket to lose: a CLI beside a killed server still works', async () => {
      const { url, drop } = await freshPostgresDatabase();
      after(drop);
      const env = { DATA_DIR: path.join(root, 'pg'), DATABASE_URL: url, DIALER_ADMIN_PASSWORD: 'admin-pw' };
      const server = await startServe(env);
      server.child.kill('SIGKILL');
      await server.exited;
      const r = await run(['user', 'create', '--username', 'yann', '--password', 'yann-pw'], env);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^campaign-dialer: using PostgreSQL at /);
    });
    return;
  }
  test('a server killed mid-command: the CLI says so and exits 1; the socket it leaves is ignored, and replaced by the next serve', async () => {
    const env = { DATA_DIR: path.join(root, 'killed'), DIALER_ADMIN_PASSWORD: 'admin-pw' };
    const first = await startServe(env);
    const phonebook = await request(first, 'POST', '/rest-api/phonebook/', adminAuth, { name: 'Big' });
    const file = path.join(root, 'big.csv');
    contactsCsv(file, 400_000);
    const importing = start(['import', 'contacts', file, '--phonebook', String(phonebook.body.id)], env);
    // The "using" line comes when the command starts on the server's database.
    await new Promise<void>((resolve) => importing.child.stderr?.on('data', (d) => String(d).includes('using') && resolve()));
    first.child.kill('SIGKILL');
    const r = await importing.done;
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /campaign-dialer: the server holding .* stopped before the command finished/);
    const socket = path.join(env.DATA_DIR as string, 'control.sock');
    assert.ok(fs.existsSync(socket), 'a killed server cannot remove its socket');

    // Nobody listens on the socket left behind: the CLI opens the database itself.
    const alone = await run(['user', 'create', '--username', 'yann', '--password', 'yann-pw'], env);
    assert.equal(alone.code, 0, alone.stderr);
    assert.match(alone.stderr, /\(no server running\)/);

    const second = await startServe(env);
    const forwarded = await run(['token', 'create', '--username', 'yann'], env);
    assert.equal(forwarded.code, 0, forwarded.stderr);
    assert.match(forwarded.stderr, new RegExp(`\\(server pid ${second.child.pid}\\)`));
    assert.equal(await stop(second), 0, second.output());
  });
});
