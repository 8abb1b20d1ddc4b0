/** What CLI commands share: the configured database for one command, and one-line errors. */
import { loadConfig } from './config.ts';
import type { Database } from './db/database.ts';
import { openAndMigrate } from './main.ts';

/** Thrown by commands for a one-line error to the user (printed as `campaign-dialer: <message>`). */
export class CliError extends Error {}

const quiet = { info: () => {}, warn: (m: string) => process.stderr.write(`${m}\n`) };

/** Runs `work` with the configured database, migrated, and closes it after. */
export async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openAndMigrate(loadConfig(), quiet);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
