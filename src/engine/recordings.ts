/**
 * Recording retention (issue 16 item 6): a user's recording_retention_days deletes their
 * recordings older than that many days, the files under DATA_DIR first, then the rows; so are
 * the recordings whose call or owner was deleted (a campaign or a user deleted leaves them
 * without either: migration 0031). The engine runs it at its first pass and then at most once
 * an hour of its clock, in batches, like the events' pruning.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/database.ts';
import { deleteRecordings, expiredRecordings, orphanedRecordings } from './store/recordings.ts';

const BATCH = 1000;

/** Deletes the recordings of deleted calls or owners, and the expired ones as of `now` (files, then rows); returns how many. */
export async function pruneRecordings(db: Db, dataDir: string, now: Date): Promise<number> {
  return (await deleteAll(db, dataDir, () => orphanedRecordings(db, BATCH))) + (await deleteAll(db, dataDir, () => expiredRecordings(db, now.toISOString(), BATCH)));
}

/** Deletes what `next` finds, a batch at a time, until it finds less than a batch. */
async function deleteAll(db: Db, dataDir: string, next: () => Promise<{ id: number; file: string }[]>): Promise<number> {
  const root = path.resolve(dataDir);
  let total = 0;
  for (;;) {
    const found = await next();
    for (const r of found) {
      const file = path.resolve(root, r.file);
      // Only files under DATA_DIR; a file already gone is fine.
      if (file.startsWith(root + path.sep)) await fs.rm(file, { force: true });
    }
    await deleteRecordings(db, found.map((r) => r.id));
    total += found.length;
    if (found.length < BATCH) return total;
  }
}
