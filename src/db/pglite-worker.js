// The embedded database's own thread: PGlite runs here, so that its work (PostgreSQL compiled
// to WebAssembly, synchronous) never blocks the server's event loop. The main thread talks to it
// through pglite-thread.ts; every message is one request and gets one answer with its id.
//
// Plain JavaScript on purpose: tsx's loader is not registered in a worker, and registering it
// would cost this thread a module-hook thread of its own (tens of MB).
/* global Blob */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dataDir, settings, textTypes } = workerData;
const identity = (value) => value;
// Types read as text on every query, as Drizzle asks on each of its own: set once here, since
// PGlite copies its whole parser table for every query that brings parsers of its own.
const parsers = Object.fromEntries(textTypes.map((oid) => [oid, identity]));
const db = new PGlite(dataDir ?? undefined, { postgresqlconf: settings, parsers });

/** Open transactions by id (the main thread's): each waits for its 'end' while its queries come. */
const transactions = new Map();
const unlisteners = new Map();

/** Query options as sent: the row mode, and the input of a COPY FROM. */
function queryOptions(options) {
  if (!options) return undefined;
  const out = { rowMode: options.rowMode };
  if (options.blob) out.blob = new Blob([options.blob]);
  return out;
}

async function plainResult(result) {
  const out = { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
  if (result.blob) out.blob = await result.blob.arrayBuffer();
  return out;
}

/** A PGlite error as plain fields: code, detail, constraint … are what callers read. */
function plainError(err) {
  const out = { message: err?.message ?? String(err), name: err?.name };
  if (err && typeof err === 'object') {
    for (const [key, value] of Object.entries(err)) {
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
    }
  }
  return out;
}

/**
 * The session a message runs in: the database, or its open transaction. The first message of a
 * transaction carries `begin`: the transaction starts with it, which saves a round trip while
 * the database is held.
 */
async function session({ tx, begin: starts }) {
  if (tx === undefined) return db;
  if (starts) await begin(tx);
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.tx;
}

/** Starts transaction `id`; resolves once PGlite has begun it (after the queries before it). */
function begin(id) {
  return new Promise((resolve, reject) => {
    db.transaction(async (tx) => {
      const ended = new Promise((end) => transactions.set(id, { tx, end }));
      resolve();
      const { commit } = await ended;
      if (!commit) await tx.rollback();
    })
      .catch((err) => {
        const open = transactions.get(id);
        if (open?.reject) open.reject(err);
        else reject(err);
      })
      .finally(() => {
        const open = transactions.get(id);
        transactions.delete(id);
        open?.resolve?.();
      });
  });
}

const handlers = {
  async ready() {
    await db.waitReady;
  },
  async query(message) {
    const { sql, params, options } = message;
    return plainResult(await (await session(message)).query(sql, params, queryOptions(options)));
  },
  async exec(message) {
    const results = await (await session(message)).exec(message.sql);
    return Promise.all(results.map(plainResult));
  },
  end({ tx, commit }) {
    const open = transactions.get(tx);
    if (!open) throw new Error(`transaction ${tx} is not open`);
    // Settled when PGlite has committed (or rolled back) and released the database.
    return new Promise((resolve, reject) => {
      open.resolve = resolve;
      open.reject = reject;
      open.end({ commit });
    });
  },
  async listen({ channel }) {
    const unlisten = await db.listen(channel, (payload) => parentPort.postMessage({ notify: channel, payload }));
    unlisteners.set(channel, unlisten);
  },
  async unlisten({ channel }) {
    await unlisteners.get(channel)?.();
    unlisteners.delete(channel);
  },
  async close() {
    await db.close();
  },
};

parentPort.on('message', async (message) => {
  try {
    const result = await handlers[message.op](message);
    const transfer = [];
    if (result?.blob) transfer.push(result.blob);
    parentPort.postMessage({ id: message.id, result }, transfer);
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: plainError(err) });
  }
});
