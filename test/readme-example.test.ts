/**
 * The README's worked example, replayed exactly as written (issue 11 §4): the marked `sh` block
 * is taken from README.md and run with bash against a server started as a user starts it
 * (`campaign-dialer serve`, a fresh DATA_DIR or PostgreSQL database, the simulator). The same
 * server shows what issue 11 §3 asks of its log: JSON lines when stdout is not a terminal, the
 * first admin's password in a block of its own on stderr and in no log line, and the engine's
 * start and end lines for the example's campaign.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { basic, freshPostgresDatabase, onPostgres } from './helpers.ts';
import { readmeBlock } from './readme.ts';

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the README worked example runs as written against a fresh server, and the log says what the engine did', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const database = onPostgres ? await freshPostgresDatabase() : undefined;
  if (database) after(database.drop);
  const { DATABASE_URL: _u, DIALER_ADMIN_PASSWORD: _p, ...inherited } = process.env;
  const env = { ...inherited, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...(database ? { DATABASE_URL: database.url } : {}) };

  const server = spawn(process.execPath, [path.resolve('bin/campaign-dialer.js'), 'serve'], { env });
  after(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen in 120 s:\n${stdout}\n${stderr}`)), 120_000);
    server.stdout.on('data', (d) => {
      stdout += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });

  // The first start's password: a block of its own on stderr, in no log line.
  const found = /^ {2}First start: created user "admin" with password (\S+)$/m.exec(stderr);
  assert.ok(found, stderr);
  const password = found[1];
  assert.ok(!stdout.includes(password), 'the password is in the log');

  const example = readmeBlock('<!-- worked-example:', 'sh');
  const replay = await run('bash', ['-e', '-o', 'pipefail', '-c', example], { ...inherited, DIALER_URL: base, DIALER_PASSWORD: password });
  assert.equal(replay.code, 0, `${replay.stdout}\n${replay.stderr}\n${stdout}`);

  // What the example made, read back as a client would.
  const auth = { authorization: basic('admin', password) };
  const campaigns = (await (await fetch(`${base}/rest-api/campaigns/`, { headers: auth })).json()) as { results: { id: number; status: number; progress: { calls_placed: number } }[] };
  assert.equal(campaigns.results.length, 1, JSON.stringify(campaigns));
  const [campaign] = campaigns.results;
  assert.equal(campaign.status, 4, JSON.stringify(campaign));
  assert.equal(campaign.progress.calls_placed, 3, JSON.stringify(campaign));
  const cdrs = (await (await fetch(`${base}/rest-api/cdr/?campaign_id=${campaign.id}`, { headers: auth })).json()) as { count: number };
  assert.equal(cdrs.count, 3, JSON.stringify(cdrs));
  assert.match(replay.stdout, /"question":"Satisfied\?","response":"[12]"/, replay.stdout);
  const subscribers = (await (await fetch(`${base}/rest-api/subscriber-list/?campaign_id=${campaign.id}`, { headers: auth })).json()) as { status: number }[];
  assert.deepEqual(subscribers.map((x) => x.status), [8, 8, 8], JSON.stringify(subscribers));

  server.kill('SIGTERM');
  assert.equal(await exited, 0, stderr);
  // Not a terminal: one JSON object per line, and the engine's lines for the campaign.
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
  const engineLines = lines.map((l) => l.msg).filter((m) => m.startsWith(`campaign ${campaign.id} `));
  assert.match(engineLines[0] ?? '', /^campaign \d+ "Example campaign \d+" started: 3 subscribers spooled$/, engineLines.join('\n'));
  assert.match(engineLines.at(-1) ?? '', /ended: done \(end_when_done: every subscriber final\); in all 3 calls, 3 answered, 0 failed, spend 0\.00$/, engineLines.join('\n'));
});
