#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 MALLOC_MMAP_THRESHOLD_=1048576 node
// glibc's malloc settings, read when the process starts, so they are set here; `npm start` runs
// this file as a program for the same reason. Setting either turns off malloc's dynamic thresholds.
// - MALLOC_TRIM_THRESHOLD_: glibc's own default value. Without it, the memory V8's threads take
//   and free while compiling (PGlite's WebAssembly above all) stays in their malloc arenas for
//   good: an idle server on PGlite held 280–300 MB, with it 220–250 MB (issue 11).
// - MALLOC_MMAP_THRESHOLD_: 1 MB rather than glibc's 128 KB, the threshold that setting the first
//   fixes. Every block from 128 KB up was a mapping of its own, fresh pages the kernel zeroes and
//   unmaps when freed. The event deliverer makes several a read of the log (the rows, their forms
//   for webhooks and streams: a few hundred KB each); in a profile of bench:events' server, ~10 %
//   of its samples were page faults, mostly under them. Under 1 MB they are reused from the heap
//   (bench:event-floor: a third fewer page faults, ~5 % less CPU; an idle server and bench:api's
//   peak RSS on PGlite the same, issue 14).
// The campaign-dialer command. The sources are TypeScript; the command runs them compiled into
// one file, dist/cli.js, which it builds with esbuild whenever a file under src/ is newer (about
// a third of a second), so `npm install` needs no build step and an edited source is never run
// stale. Compiled, the process needs no module hooks: on Node 20 those run in a thread of their
// own that cost every server process tens of MB of memory (issue 11).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const src = path.join(root, 'src');
const bundle = path.join(root, 'dist', 'cli.js');

/** The newest modification time of the files under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newest(file) : fs.statSync(file).mtimeMs;
    if (time > latest) latest = time;
  }
  return latest;
}

function stale() {
  try {
    return fs.statSync(bundle).mtimeMs < newest(src);
  } catch {
    return true; // not built yet
  }
}

if (stale()) {
  const esbuild = await import('esbuild');
  // Written beside and renamed into place: processes started at once never read half a file.
  const temporary = `${bundle}.${process.pid}.tmp`;
  await esbuild.build({
    entryPoints: [path.join(src, 'cli.ts')],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external', // node_modules load as they are
    sourcemap: false,
    logLevel: 'error',
  });
  fs.renameSync(temporary, bundle);
  // esbuild's service process would otherwise live as long as this one (about 40 MB).
  await esbuild.stop();
}


const { main } = await import(pathToFileURL(bundle).href);
await main();
