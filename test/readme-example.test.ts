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
import { test } from 'node:test';
import { childEnv } from './cli-process.ts';
import { basic } from './helpers.ts';
import { readmeBlock, startServerAsUser } from './readme.ts';

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
  const { base, password, child: server, stdout: out, stderr: err, exited } = await startServerAsUser();
  // The first start's password: a block of its own on stderr, in no log line.
  assert.ok(!out().includes(password), 'the password is in the log');

  const example = readmeBlock('<!-- worked-example:', 'sh');
  const replay = await run('bash', ['-e', '-o', 'pipefail', '-c', example], childEnv({ DIALER_URL: base, DIALER_PASSWORD: password }));
  assert.equal(replay.code, 0, `${replay.stdout}\n${replay.stderr}\n${out()}`);

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
  assert.equal(await exited, 0, err());
  const stdout = out();
  // Not a terminal: one JSON object per line, and the engine's lines for the campaign.
  const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { msg: string });
  const engineLines = lines.map((l) => l.msg).filter((m) => m.startsWith(`campaign ${campaign.id} `));
  assert.match(engineLines[0] ?? '', /^campaign \d+ "Example campaign \d+" started: 3 subscribers spooled$/, engineLines.join('\n'));
  assert.match(engineLines.at(-1) ?? '', /ended: done \(end_when_done: every subscriber final\); in all 3 calls, 3 answered, 0 failed, spend 0\.00$/, engineLines.join('\n'));
});
