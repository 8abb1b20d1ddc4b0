// Creates a new embedded database directory (initdb) and exits: run as a process of its own by
// createPgliteDirectory (pglite-thread.ts), so that the hundreds of MB initdb touches go back to
// the system with the process. Arguments: the directory, then the postgresql.conf settings (JSON).
import { PGlite } from '@electric-sql/pglite';

const [dir, settings] = process.argv.slice(2);
const db = new PGlite(dir, { postgresqlconf: JSON.parse(settings) });
await db.waitReady;
await db.close();
