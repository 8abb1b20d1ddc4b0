/**
 * Recording retention (issue 16 item 6): a user's recording_retention_days deletes their
 * recordings older than that many days, the files under DATA_DIR first, then the rows. The
 * engine runs it at most once an hour of its clock, in batches, like the events' pruning.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/database.ts';
import { deleteRecordings, expiredRecordings } from './store/recordings.ts';

const BATCH = 1000;

/** Deletes expired recordings (files and rows) as of `now`; returns how many. */
export async function pruneRecordings(db: Db, dataDir: string, now: Date): Promise<number> {
  const root = path.resolve(dataDir);
  let total = 0;
  for (;;) {
    const expired = await expiredRecordings(db, now.toISOString(), BATCH);
    for (const r of expired) {
      const file = path.resolve(root, r.file);
      // Only files under DATA_DIR; a file already gone is fine.
      if (file.startsWith(root + path.sep)) await fs.rm(file, { force: true });
    }
    await deleteRecordings(db, expired.map((r) => r.id));
    total += expired.length;
    if (expired.length < BATCH) return total;
  }
}
