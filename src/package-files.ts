/**
 * Files the package ships beside its code (the migrations, the database thread's scripts),
 * found from the package's root. The code runs either from src/ (through tsx, in tests) or from
 * the compiled bundle in dist/ (the command), so a path relative to this module would differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root: the nearest folder above this module with a package.json. */
function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('campaign-dialer: cannot find the package root');
    dir = parent;
  }
  root = dir;
  return dir;
}

/** The absolute path of `relative` (e.g. 'src/db/migrations') in the package. */
export function packageFile(relative: string): string {
  return path.join(packageRoot(), relative);
}
