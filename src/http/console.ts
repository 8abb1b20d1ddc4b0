/**
 * The operators' console (console/, a single-page app built by `npm install` into console/dist)
 * served by the API's own server at `/`. The API stays under /rest-api/ untouched:
 *
 * - `/assets/…` are Vite's content-hashed files: cached for a year, `immutable`.
 * - Any other GET that asks for HTML (a browser opening `/campaigns/3`) is answered index.html,
 *   never cached (a new build must reach browsers at once), so the app's router reads the URL.
 * - The build writes a `.br` and a `.gz` beside every text file (scripts/build-console.js);
 *   @fastify/static's `preCompressed` sends the one the browser accepts, at no CPU cost here.
 * - Anything else, and every path under /rest-api/, goes to the app's JSON 404.
 *
 * Without a build (an install with --omit=dev, or a source checkout before `npm install`), `/`
 * answers a short page saying how to build it. index.html is looked for on each HTML request,
 * so a build made while the server runs (`npm run dev:console`) is served without a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageFile } from '../package-files.ts';
import { API_PREFIX } from './links.ts';

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Campaign Dialer</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40em; margin: 3em auto; padding: 0 1em">
<h1>Campaign Dialer</h1>
<p>The operators' console has not been built. In the project's folder, run
<code>npm install</code> (it builds the console) or <code>npm run build:console</code>, then reload this page.</p>
<p>The API is at <a href="${API_PREFIX}/">${API_PREFIX}/</a>, its documentation at <a href="${API_PREFIX}/docs">${API_PREFIX}/docs</a>.</p>
</body></html>
`;

/** Where the built console is; tests may point elsewhere. */
export function consoleDir(): string {
  return packageFile('console/dist');
}

/** True when the request is a browser navigation (it accepts HTML), not a script's fetch. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** Registers the console's routes on `app` (outside /rest-api/). */
export async function registerConsole(app: FastifyInstance, root = consoleDir()): Promise<void> {
  await app.register(async (scope) => {
    // serve: false — the one route below decides what each path is (asset, page or 404).
    await scope.register(fastifyStatic, { root, serve: false, preCompressed: true, index: false });

    const sendIndex = (reply: FastifyReply) => {
      if (!fs.existsSync(path.join(root, 'index.html'))) {
        return reply.code(200).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(NOT_BUILT);
      }
      return reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding').sendFile('index.html', { cacheControl: false });
    };

    scope.get('/*', { schema: { hide: true } }, (request, reply) => {
      const pathname = (request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
      if (pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`)) return reply.callNotFound();
      if (pathname.startsWith('/assets/')) {
        return reply.header('vary', 'accept-encoding').sendFile(pathname.slice(1), { maxAge: '365d', immutable: true });
      }
      const last = pathname.slice(pathname.lastIndexOf('/') + 1);
      // A file at the top of the build (favicon.svg): short-lived, it has no hash in its name.
      if (last.includes('.') && last !== 'index.html') return reply.header('vary', 'accept-encoding').sendFile(pathname.slice(1), { maxAge: '1h' });
      if (pathname === '/' || pathname === '/index.html' || wantsHtml(request)) return sendIndex(reply);
      return reply.callNotFound();
    });
  });
}
