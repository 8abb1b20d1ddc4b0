/**
 * `npm test` sets up its real peers first (scripts/peers.js, issue 11 §5). Run as a user who is
 * not root (as root, the test drops to `nobody` with setpriv) with a PATH that lacks some of
 * them, it stops before running any test with one line naming the command that installs them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('run-tests stops at once, naming the apt-get command, when a peer binary is missing and it is not root', () => {
  const emptyPath = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-nopath-'));
  fs.chmodSync(emptyPath, 0o755);
  const script = path.resolve('scripts/run-tests.js');
  // util-linux's setpriv, named by its path: the child's PATH is the empty one.
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => fs.existsSync(f)) ?? 'setpriv';
  const asUser = process.getuid?.() === 0 ? [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  // sipp, espeak-ng and sox live in /usr/bin, which this PATH lacks (the sbin directories are
  // searched anyway: kannel and kamailio stay found there).
  const [command, ...args] = [...asUser, process.execPath, script, 'test/no-such.test.ts'];
  const r = spawnSync(command, args, { cwd: os.tmpdir(), env: { PATH: emptyPath, HOME: os.tmpdir() }, encoding: 'utf8' });
  fs.rmSync(emptyPath, { recursive: true, force: true });
  assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
  assert.equal(r.stdout, '', 'something ran before the check');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0], /^missing test peers \(sip-tester, espeak-ng, sox\): run as root "apt-get update && apt-get install -y --no-install-recommends sip-tester espeak-ng sox", then the tests again$/);
});
