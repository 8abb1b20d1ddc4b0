/** The audio a call plays that is not in its frozen survey: the campaign's voicemail message. */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';

/** The stored path of audio file `id`, or null. */
export async function audioFilePath(db: Db, id: number): Promise<string | null> {
  const [row] = await queryRows<{ audio_file: string }>(db, sql`select audio_file from audio_files where id = ${id}`);
  return row?.audio_file ?? null;
}
