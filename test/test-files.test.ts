/**
 * A rule for the test files themselves: every top-level await (a database, an app, a user) comes
 * before the file's first test or suite. node:test runs a file's after() hooks as soon as every
 * test declared so far has ended, even while the file is still awaiting at its top level; so a
 * database opened by a top-level await between two suites was closed under the second one
 * whenever the first ended meanwhile (accounts.test.ts's intermittent 500 in CI: "Cannot use a
 * pool after calling end on the pool").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..');

/** The files `npm test` runs, as its runner finds them. */
function testFiles(): string[] {
  const listed = execFileSync(process.execPath, ['scripts/run-tests.js', '--list'], { cwd: root, encoding: 'utf8' });
  return listed.split('\n').filter(Boolean).map((file) => path.join(root, file));
}

/** A statement at the top level (no indentation) that awaits. */
const TOP_LEVEL_AWAIT = /^(?:(?:export\s+)?(?:const|let|var)\b.*|for\b.*|)\bawait\b/;
/** A test or suite declared at the top level. */
const DECLARATION = /^(?:describe|suite|test|it)(?:\.\w+)?\(/;

test('every top-level await of a test file comes before its first test or suite', () => {
  const files = testFiles();
  assert.ok(files.length > 50, `test files found: ${files.length}`);
  const late: string[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const first = lines.findIndex((line) => DECLARATION.test(line));
    if (first < 0) continue;
    for (let i = first + 1; i < lines.length; i++) {
      if (TOP_LEVEL_AWAIT.test(lines[i])) late.push(`${path.relative(root, file)}:${i + 1}: ${lines[i]}`);
    }
  }
  assert.deepEqual(late, [], 'move these above the first test or suite of their file');
});
