/**
 * The console's build (README "Develop"): `npm run build:console`, or `npm run dev:console` to
 * rebuild on every change while `npm start` serves console/dist. No dev server: the API's own
 * server serves the build, so the cookie, CSRF and SSE paths are the real ones.
 *
 * After each build, the `precompress` plugin writes a .br and a .gz beside every text file (the
 * server sends them as they are: no compression per request) and prints the compressed size of
 * the JavaScript the first page load fetches, failing the build past the budget.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(new URL(import.meta.url).pathname);
const outDir = path.join(here, 'dist');
/** Issue 15: the first load's JavaScript, gzip-compressed, stays within 300 KB. */
export const FIRST_LOAD_BUDGET = 300 * 1024;
const TEXT = /\.(js|css|html|svg|json|txt|map)$/;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(full) : [full];
  });
}

/** The scripts index.html loads at once: its module entry and every modulepreload. */
export function firstLoadScripts(indexHtml: string): string[] {
  const found = [...indexHtml.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)];
  return [...new Set(found.map((m) => m[1]))];
}

function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    writeBundle() {
      for (const file of filesUnder(outDir)) {
        if (!TEXT.test(file)) continue;
        const body = fs.readFileSync(file);
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
      const scripts = firstLoadScripts(fs.readFileSync(path.join(outDir, 'index.html'), 'utf8'));
      const gzip = scripts.reduce((sum, s) => sum + fs.statSync(path.join(outDir, `${s}.gz`)).size, 0);
      const brotli = scripts.reduce((sum, s) => sum + fs.statSync(path.join(outDir, `${s}.br`)).size, 0);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      console.log(`console: first load JavaScript ${kb(gzip)} gzip, ${kb(brotli)} brotli (${scripts.length} files; budget ${kb(FIRST_LOAD_BUDGET)} gzip)`);
      if (gzip > FIRST_LOAD_BUDGET) this.error(`the first load's JavaScript is ${kb(gzip)} gzip, over the ${kb(FIRST_LOAD_BUDGET)} budget`);
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  publicDir: path.join(here, 'public'),
  // No React plugin: JSX is compiled by Vite's own transform (the automatic runtime), and with
  // no dev server there is no fast refresh to add.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      // React Query marks its modules "use client" (for server components); meaningless in a SPA.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
  plugins: [precompress()],
});
