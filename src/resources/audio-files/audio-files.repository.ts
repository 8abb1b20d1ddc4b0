import { and, asc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { audioFiles, campaigns, sectionTemplates } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { ownedBy } from '../../http/scope.ts';

export type AudioFileRow = typeof audioFiles.$inferSelect;

/** The audio files `user` may see. */
export const visibleAudioFiles = (user: AuthUser): SQL | undefined => ownedBy(user, audioFiles.user_id);

/** The audio file `id` if `user` may see it (also what link fields to audio files check). */
export async function findAudioFile(db: Db, user: AuthUser, id: number): Promise<AudioFileRow | undefined> {
  return (await db.select().from(audioFiles).where(and(eq(audioFiles.id, id), visibleAudioFiles(user))))[0];
}

export function countAudioFiles(db: Db, where: SQL | undefined): Promise<number> {
  return db.$count(audioFiles, where);
}

export function listAudioFiles(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<AudioFileRow[]> {
  return db.select().from(audioFiles).where(where).orderBy(asc(audioFiles.id)).limit(limit).offset(offset);
}

export async function insertAudioFile(db: Db, values: typeof audioFiles.$inferInsert): Promise<AudioFileRow> {
  return (await db.insert(audioFiles).values(values).returning())[0];
}

export async function updateAudioFile(db: Db, id: number, values: Partial<typeof audioFiles.$inferInsert>): Promise<void> {
  await db
    .update(audioFiles)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(audioFiles.id, id));
}

/** Whether a survey section or a campaign plays this audio file. */
export async function audioFileInUse(db: Db, id: number): Promise<boolean> {
  const sections = await db.$count(
    sectionTemplates,
    or(eq(sectionTemplates.audiofile_id, id), eq(sectionTemplates.invalid_audiofile_id, id)),
  );
  if (sections > 0) return true;
  return (await db.$count(campaigns, eq(campaigns.voicemail_audiofile_id, id))) > 0;
}

/** Deletes the record; returns it (for its file), or undefined when it was already gone. */
export async function deleteAudioFile(db: Db, id: number): Promise<AudioFileRow | undefined> {
  return (await db.delete(audioFiles).where(eq(audioFiles.id, id)).returning())[0];
}
