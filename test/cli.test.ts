/**
 * The campaign-dialer command, run as a real process (issue 2 §3–§4): help, migrate, users and
 * tokens, serve with a first admin, the embedded database's lock file, and a database that is
 * down at start. On PGlite each run names a DATA_DIR; on PostgreSQL a per-file DATABASE_URL.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { bin, childEnv, type Env, run as runIn, type Run, type Server, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, freePort, freshPostgresDatabase, onPostgres, testDatabase } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-cli-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const lockName = 'campaign-dialer.lock';

/** A database of its own for a group of runs: a fresh DATA_DIR, or a fresh PostgreSQL database. */
async function freshDatabaseEnv(name: string): Promise<Env> {
  const dataDir = path.join(root, name);
  if (!onPostgres) return { DATA_DIR: dataDir };
  const { url, drop } = await freshPostgresDatabase();
  after(drop);
  return { DATA_DIR: dataDir, DATABASE_URL: url };
}

const mainEnv: Env = onPostgres
  ? { DATA_DIR: path.join(root, 'main'), DATABASE_URL: (await testDatabase()).url }
  : { DATA_DIR: path.join(root, 'main') };

/** Runs the command to its end (in the file's main database by default). */
const run = (args: string[], env: Env = mainEnv): Promise<Run> => runIn(args, env);

/** The lines of stderr after the first, which says which database the command used. */
function afterUsingLine(r: Run): string[] {
  const [first, ...rest] = r.stderr.trimEnd().split('\n');
  assert.match(first, /^campaign-dialer: using (the embedded database in \S+ \(no server running\)|PostgreSQL at \S+)$/, r.stderr);
  return rest;
}

async function get(server: Server, url: string, auth?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.base}${url}`, { headers: auth ? { authorization: auth } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe(`the campaign-dialer command (${dbLabel})`, () => {
  test('--help lists the commands, and every command has its own --help', async () => {
    const runs = await Promise.all([
      run(['--help']),
      run(['serve', '--help']),
      run(['migrate', '--help']),
      run(['user', 'create', '--help']),
      run(['user', 'update', '--help']),
      run(['token', 'create', '--help']),
    ]);
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const [top, serve, migrate, create, update, token] = runs.map((r) => r.stdout);
    for (const command of ['serve', 'migrate', 'user', 'token']) assert.match(top, new RegExp(`\\b${command}\\b`));
    assert.match(serve, /--role <role>/);
    assert.match(migrate, /migrations/);
    for (const flag of ['--username', '--password', '--admin', '--email', '--first-name', '--last-name', '--balance', '--call-rate', '--sms-rate']) {
      assert.ok(create.includes(flag), `user create --help lacks ${flag}`);
      assert.ok(flag === '--username' || update.includes(flag), `user update --help lacks ${flag}`);
    }
    assert.match(update, /<username>/);
    assert.match(token, /--username/);
  });

  test('migrate brings the database up to date and releases the lock', async () => {
    const r = await run(['migrate']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /database is up to date/);
    assert.ok(!fs.existsSync(path.join(mainEnv.DATA_DIR as string, lockName)), 'the lock file is left behind');
  });

  test('user create takes every flag; a duplicate is one line and a non-zero exit', async () => {
    const flags = ['--email', 'carol@example.com', '--first-name', 'Carol', '--last-name', 'Jones', '--balance', '12.5', '--call-rate', '0.02', '--sms-rate', '0.01'];
    const created = await run(['user', 'create', '--username', 'carol', '--password', 'carol-pw', '--admin', ...flags]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /created user carol \(id \d+, admin\)/);
    const plain = await run(['user', 'create', '--username', 'dave', '--password', 'dave-pw']);
    assert.equal(plain.code, 0, plain.stderr);
    const duplicate = await run(['user', 'create', '--username', 'carol', '--password', 'x']);
    assert.notEqual(duplicate.code, 0);
    assert.deepEqual(afterUsingLine(duplicate), ['campaign-dialer: user "carol" already exists']);
    const badFlag = await run(['user', 'create', '--username', 'erin', '--password', 'x', '--balance', 'lots']);
    assert.notEqual(badFlag.code, 0);
    assert.match(badFlag.stderr, /--balance/);
  });

  test('user update changes the password and the admin flag; an unknown user fails', async () => {
    const updated = await run(['user', 'update', 'dave', '--password', 'dave-new-pw', '--admin']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, /updated user dave/);
    const unknown = await run(['user', 'update', 'nobody-here', '--admin']);
    assert.notEqual(unknown.code, 0);
    assert.deepEqual(afterUsingLine(unknown), ['campaign-dialer: no user "nobody-here"']);
  });

  test('token create prints a token that authenticates against serve; SIGTERM stops it cleanly', async () => {
    const token = await run(['token', 'create', '--username', 'carol']);
    assert.equal(token.code, 0, token.stderr);
    const key = token.stdout.trim();
    assert.match(key, /^\S{20,}$/);
    const unknown = await run(['token', 'create', '--username', 'nobody-here']);
    assert.notEqual(unknown.code, 0);

    const server = await startServe(mainEnv);
    assert.deepEqual(await get(server, '/healthz'), { status: 200, body: { status: 'ok' } });
    const byToken = await get(server, '/rest-api/users/?page_size=1000', `Token ${key}`);
    assert.equal(byToken.status, 200, JSON.stringify(byToken.body));
    const carol = byToken.body.results.find((u: { username: string }) => u.username === 'carol');
    assert.deepEqual(
      { email: carol.email, first_name: carol.first_name, last_name: carol.last_name, balance: carol.balance, call_rate: carol.call_rate, sms_rate: carol.sms_rate },
      { email: 'carol@example.com', first_name: 'Carol', last_name: 'Jones', balance: 12.5, call_rate: 0.02, sms_rate: 0.01 },
    );
    assert.ok(byToken.body.results.some((u: { username: string }) => u.username === 'dave'), 'carol (admin) sees dave');
    assert.equal((await get(server, '/rest-api/users/', basic('dave', 'dave-pw'))).status, 401);
    const dave = await get(server, '/rest-api/users/?page_size=1000', basic('dave', 'dave-new-pw'));
    assert.equal(dave.status, 200);
    assert.ok(dave.body.count >= 2, 'dave, now an admin, sees every user');

    assert.equal(await stop(server), 0, server.output());
    assert.ok(!fs.existsSync(path.join(mainEnv.DATA_DIR as string, lockName)), 'serve left its lock file');
  });
});

describe(`first start and the embedded lock (${dbLabel})`, () => {
  test('the first start creates admin with DIALER_ADMIN_PASSWORD; a second serve on the same DATA_DIR exits 1 naming the holder', async () => {
    const env: Env = { ...(await freshDatabaseEnv('first')), DIALER_ADMIN_PASSWORD: 'first-admin-pw' };
    const server = await startServe(env);
    const me = await get(server, '/rest-api/users/', basic('admin', 'first-admin-pw'));
    assert.equal(me.status, 200, server.output());
    assert.equal(me.body.results[0].username, 'admin');
    assert.ok(!server.output().includes('first-admin-pw'), 'the given password is logged');

    // The lock guards the embedded database only; the second process is given the same DATA_DIR.
    const embedded = onPostgres ? await startServe({ DATA_DIR: env.DATA_DIR }) : server;
    const second = await run(['serve'], { DATA_DIR: env.DATA_DIR });
    assert.equal(second.code, 1, second.stderr);
    const lines = second.stderr.trim().split('\n');
    assert.equal(lines.length, 1, second.stderr);
    assert.match(lines[0], new RegExp(`in use by process ${embedded.child.pid}\\b`));
    if (embedded !== server) assert.equal(await stop(embedded), 0, embedded.output());
    assert.equal(await stop(server), 0, server.output());
  });

  test('without DIALER_ADMIN_PASSWORD the first start logs a random admin password once', async () => {
    const server = await startServe(await freshDatabaseEnv('random'));
    const found = [...server.output().matchAll(/created user \\?"admin\\?" with password (\S+)/g)];
    assert.equal(found.length, 1, server.output());
    const res = await get(server, '/rest-api/users/', basic('admin', found[0][1]));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await stop(server), 0, server.output());
  });

  test('a stale lock left by a dead process is taken over', async () => {
    const dataDir = path.join(root, 'stale');
    fs.mkdirSync(dataDir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    fs.writeFileSync(path.join(dataDir, lockName), JSON.stringify({ pid: dead, started: new Date().toISOString() }));
    const r = await run(['migrate'], { DATA_DIR: dataDir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!fs.existsSync(path.join(dataDir, lockName)), 'the lock file is left behind');
  });

  test('a database that is down at start is retried, with a message each time', async () => {
    const port = await freePort();
    const target = new URL(onPostgres ? (mainEnv.DATABASE_URL as string) : 'postgres://postgres@127.0.0.1/postgres');
    const upstream = { host: target.hostname, port: Number(target.port || 5432) };
    target.host = `127.0.0.1:${port}`;
    const child = spawn(process.execPath, [bin, 'migrate'], { env: childEnv({ DATABASE_URL: target.toString() }) });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no retry message in 30 s: ${stderr}`)), 30_000);
      child.stderr.on('data', (d) => {
        stderr += d;
        if (/not reachable.*retrying in \d+ ms/.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    if (!onPostgres) {
      // No server to open the port onto: the retry message is what this run can check.
      child.kill('SIGTERM');
      await exited;
      return;
    }
    // The database "comes up": the port opens onto the real server, and migrate succeeds.
    const proxy = net.createServer((socket) => {
      const up = net.connect(upstream.port, upstream.host);
      socket.pipe(up).pipe(socket);
      up.on('error', () => socket.destroy());
      socket.on('error', () => up.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
    after(() => proxy.close());
    assert.equal(await exited, 0, stderr);
  });

  test('a database that never comes up ends serve after DATABASE_RETRY_SECONDS: one line saying it gave up, exit 1', async () => {
    const started = Date.now();
    const r = await run(['serve'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres', DATABASE_RETRY_SECONDS: '2' });
    const seconds = (Date.now() - started) / 1000;
    assert.notEqual(r.code, 0, r.stderr);
    assert.ok(seconds < 15, `serve took ${seconds} s to give up`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^campaign-dialer: gave up after 2 s: database at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres is not reachable/);
    // It did retry before giving up, saying so in the log.
    assert.match(r.stdout, /not reachable.*retrying in \d+ ms/);
  });
});
