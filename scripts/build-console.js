#!/usr/bin/env node
// Builds the operators' console (console/ → console/dist). Run by `npm install` and `npm ci`
// (the root's prepare script) and by `npm run build:console`. Vite is a devDependency: an
// install without them (--omit=dev) has no Vite, and then this says so and leaves the server to
// answer `/` with a page saying how to build (src/http/console.ts), instead of failing the install.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
let viteBin;
try {
  const pkg = createRequire(path.join(root, 'package.json')).resolve('vite/package.json');
  viteBin = path.join(path.dirname(pkg), 'bin', 'vite.js');
} catch {
  console.log('console: not built (Vite is not installed: devDependencies were omitted). Run "npm install", then "npm run build:console".');
  process.exit(0);
}
const watch = process.argv.includes('--watch');
const args = [viteBin, 'build', '--config', path.join(root, 'console', 'vite.config.ts'), ...(watch ? ['--watch'] : [])];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
