/**
 * The server as `npm start` and npx start it runs with glibc's malloc trim threshold set (the
 * first line of bin/campaign-dialer.js): without it, memory freed by V8's compiler threads stayed
 * in their malloc arenas, ~50–70 MB of an idle server on PGlite (issue 11 §13; bench:api prints
 * the peak RSS). This checks that the setting reaches the server process, and that `npm start`
 * runs the command as a program so that it does.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freshEnv, startServe, stop } from './cli-process.ts';
import { dbLabel } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-memory-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test(`serve runs with MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ set by the command's first line; npm start runs the command as a program (${dbLabel})`, async () => {
  const scripts = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts.start, 'bin/campaign-dialer.js serve');
  assert.match(fs.readFileSync('bin/campaign-dialer.js', 'utf8').split('\n')[0], /^#!\/usr\/bin\/env -S MALLOC_TRIM_THRESHOLD_=\d+ MALLOC_MMAP_THRESHOLD_=\d+ node$/);

  const server = await startServe(await freshEnv(path.join(root, 'data')));
  try {
    const environ = fs.readFileSync(`/proc/${server.child.pid}/environ`, 'utf8').split('\0');
    for (const setting of ['MALLOC_TRIM_THRESHOLD_=131072', 'MALLOC_MMAP_THRESHOLD_=1048576']) {
      assert.ok(environ.includes(setting), `the server's environment: ${environ.filter((e) => e.startsWith('MALLOC')).join(', ') || 'no MALLOC_ setting'}`);
    }
    const res = await fetch(`${server.base}/healthz`);
    assert.equal(res.status, 200);
  } finally {
    assert.equal(await stop(server), 0, server.output());
  }
});
