#!/usr/bin/env node
// The real programs the tests run against, in one list: each Debian package with the binaries
// that prove it is installed. `npm test` (run-tests.js) and CI (.ci/run) call ensurePeers()
// before any test: as root it installs what is missing with apt-get; otherwise it stops at once
// with one line naming the command to run. A real-peer test is never skipped silently.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian package → binaries (a bare name is looked up on PATH and in the sbin directories). */
export const peers = [
  { pkg: 'kannel', binaries: ['bearerbox', 'smsbox'], why: 'the Kannel SMS driver tests' },
  { pkg: 'kannel-extras', binaries: ['/usr/lib/kannel/test/fakesmsc'], why: 'the Kannel SMS driver tests' },
  { pkg: 'sip-tester', binaries: ['sipp'], why: 'the SIP driver tests' },
  { pkg: 'kamailio', binaries: ['kamailio'], why: 'the SIP driver tests' },
  { pkg: 'espeak-ng', binaries: ['espeak-ng'], why: 'the SIP driver tests (text to speech)' },
  { pkg: 'sox', binaries: ['sox'], why: 'the SIP driver tests (audio)' },
  // By its path: Debian installs it in /usr/bin (test/peers.test.ts runs with a PATH without it).
  { pkg: 'tcpdump', binaries: ['/usr/bin/tcpdump'], why: 'the SIP echo test and npm run demo:sip (the RTP that reaches sipp)' },
  // By its path: test/exim.ts runs it there, a real MTA for the e-mail reminders' SMTP client.
  { pkg: 'exim4-daemon-light', binaries: ['/usr/sbin/exim4'], why: 'the e-mail tests (a real MTA on loopback)' },
  // By its path: playwright-core launches it there (test/browser/); a browser download never works here.
  { pkg: 'chromium', binaries: ['/usr/bin/chromium'], why: "the console's browser tests (test/browser/)" },
];

// Debian puts daemons in the sbin directories, which a non-root PATH often lacks.
const SBIN = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Where `binary` is, or undefined. */
export function findBinary(binary, env = process.env) {
  if (path.isAbsolute(binary)) return executable(binary) ? binary : undefined;
  const dirs = [...(env.PATH ?? '').split(path.delimiter).filter(Boolean), ...SBIN];
  return dirs.map((dir) => path.join(dir, binary)).find(executable);
}

/** The packages whose binaries are not all found. */
export function missingPeers(env = process.env) {
  return peers.filter((p) => p.binaries.some((b) => !findBinary(b, env)));
}

const installCommand = (pkgs) => `apt-get update && apt-get install -y --no-install-recommends ${pkgs.join(' ')}`;

function runLoud(command, args, env) {
  console.log(`peers: ${[command, ...args].join(' ')}`);
  const r = spawnSync(command, args, { stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`peers: "${command} ${args.join(' ')}" failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(1);
  }
}

/**
 * Makes sure every peer is installed, or exits 1 with one line saying what to run. Root installs
 * the missing packages (apt-get update once, then one apt-get install).
 */
export function ensurePeers() {
  const missing = missingPeers();
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map((p) => p.pkg))];
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !findBinary('apt-get')) {
    console.error(`missing test peers (${pkgs.join(', ')}): run as root "${installCommand(pkgs)}", then the tests again`);
    process.exit(1);
  }
  console.log(`peers: installing ${pkgs.join(', ')} (needed by ${[...new Set(missing.map((p) => p.why))].join('; ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  runLoud('apt-get', ['update', '-q'], env);
  runLoud('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...pkgs], env);
  const still = missingPeers();
  if (still.length) {
    console.error(`peers: still missing after apt-get install: ${still.map((p) => `${p.pkg} (${p.binaries.filter((b) => !findBinary(b)).join(', ')})`).join(', ')}`);
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) ensurePeers();
