#!/usr/bin/env node
// The campaign-dialer command. The sources are TypeScript run through tsx, so that an
// `npm install` leaves the command runnable with no build step.
import { register } from 'tsx/esm/api';

// The large ESM packages are imported before tsx's hooks are registered. On Node 20 module hooks
// run in a thread of their own, and every module loaded through them costs memory there as well
// (measured: these packages' ~430 files cost an engine process ~55 MB of its ~180 MB idle RSS,
// issue 5). Imported here, they load in the main thread only, and the sources' imports of them
// find them already loaded. Plain JavaScript only: tsx is not registered yet.
await Promise.all([
  import('drizzle-orm'),
  import('drizzle-orm/pg-core'),
  import('drizzle-orm/node-postgres'),
  import('drizzle-orm/pglite'), // and @electric-sql/pglite
  import('@sinclair/typebox'),
  import('libphonenumber-js'),
]);

register();
const { main } = await import('../src/cli.ts');
await main();
