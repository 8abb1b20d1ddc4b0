#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner through tsx. The files are
// listed explicitly: on Node 20 a directory argument finds no .ts files and passes with none.
// First the real peers the tests run against are set up (peers.js): installed as root, or a
// one-line stop naming the command; a real-peer test never skips. `--list` prints the files it
// would run, one a line, and nothing else (test/test-files.test.ts checks them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePeers } from './peers.js';

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return find(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const list = process.argv[2] === '--list';
const only = list ? [] : process.argv.slice(2);
const files = only.length ? only : [...find('src'), ...find('test')].sort();
if (list) {
  console.log(files.join('\n'));
  process.exit(0);
}
ensurePeers();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// Tests that judge real-time audio (RTP paced at 20 ms, captured and compared with a prompt)
// run one file at a time, after the others: two sipp campaigns side by side on two cores starve
// each other's media (the echo test once heard nothing beside the AMD test).
const realTime = (file) => /(^|\/)(test\/sip|src\/drivers\/voice\/sip\/media)\//.test(file);
const batches = [
  { files: files.filter((f) => !realTime(f)), concurrency: 2 },
  { files: files.filter(realTime), concurrency: 1 },
].filter((batch) => batch.files.length > 0);
console.log(`running ${files.length} test files on ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`);
let status = 0;
for (const batch of batches) {
  const result = spawnSync(
    process.execPath,
    // Not --test-force-exit: on Node 20 it ends a file as soon as no test is running, dropping
    // (silently) the tests a file registers after a top-level await (6 of them, measured).
    ['--import', 'tsx', '--test', `--test-concurrency=${batch.concurrency}`, '--test-timeout=300000', ...batch.files],
    { stdio: 'inherit', env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } },
  );
  if (result.status !== 0) status = result.status ?? 1;
}
process.exit(status);
