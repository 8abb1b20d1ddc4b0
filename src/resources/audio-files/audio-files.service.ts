/**
 * Audio file rules beyond CRUD: an upload is accepted only when all of it decodes as WAV, MP3
 * or OGG (contract §8) and a call can play it (src/audio/playable.ts); it is stored under a
 * name of the server's choosing with the extension of what it is, with the duration, sample
 * rate and channels the decoder found; a file still played by a section or a campaign is not
 * deleted, and a deleted record takes its file with it.
 */
import fs from 'node:fs';
import { AudioDecodeError } from '../../audio/decode.ts';
import { PlayableAudio, unplayableReason } from '../../audio/playable.ts';
import { type AudioInfo, probeAudio } from '../../audio/probe.ts';
import type { Db } from '../../db/database.ts';
import { AppError, conflict, type FieldErrors, invalid } from '../../http/errors.ts';
import { type FieldContext, type Parsed, parseBody } from '../../http/fields.ts';
import {
  type AudioFileRow,
  audioFileInUse,
  deleteAudioFile,
  insertAudioFile,
} from './audio-files.repository.ts';
import { audioFileFields } from './audio-files.schema.ts';
import { AudioKinds, keep, removeQuietly, storedPath } from './audio-files.storage.ts';
import type { UploadForm } from './audio-files.upload.ts';

export const AudioMessages = {
  required: 'This field is required.',
  notAFile: 'The submitted data was not a file. Check the encoding type on the form.',
  empty: 'The submitted file is empty.',
  inUse: 'This audio file is used by a survey section or a campaign; remove it from them first.',
} as const;

/**
 * What the uploaded file decodes to, or the message to show under `audio_file`. The whole file
 * is read (MAX_UPLOAD_MB bounds it) and decoded without keeping its samples.
 */
async function checkFile(form: UploadForm): Promise<AudioInfo | string> {
  if (form.temp === undefined) return form.fileAsText ? AudioMessages.notAFile : AudioMessages.required;
  const bytes = await fs.promises.readFile(form.temp);
  if (bytes.length === 0) return AudioMessages.empty;
  try {
    const info = await probeAudio(bytes, { maxSeconds: PlayableAudio.maxSeconds });
    return unplayableReason(info) ?? info;
  } catch (err) {
    if (err instanceof AudioDecodeError) return err.message;
    throw err;
  }
}

/** The form's name and owner, with every field's problem (the file's included) in one 400. */
async function checkForm(form: UploadForm, ctx: FieldContext) {
  const errors: FieldErrors = {};
  let values: Parsed<typeof audioFileFields> = {};
  try {
    values = await parseBody(audioFileFields, { name: form.fields.name, user: form.fields.user_id }, ctx);
  } catch (err) {
    if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
    Object.assign(errors, err.body);
  }
  const audio = await checkFile(form);
  if (typeof audio === 'string') errors.audio_file = [audio];
  if (Object.keys(errors).length > 0 || typeof audio === 'string') throw invalid(errors);
  return { name: values.name as string, user: values.user ?? ctx.user.id, audio };
}

/**
 * Stores an uploaded file and records it. The caller removes `form.temp` afterwards in every
 * case (it is gone already once kept); a stored file whose record fails is removed here.
 */
export async function uploadAudioFile(ctx: FieldContext, dataDir: string, form: UploadForm): Promise<AudioFileRow> {
  const { name, user, audio } = await checkForm(form, ctx);
  const kind = AudioKinds[audio.format];
  const relative = await keep(dataDir, form.temp as string, kind);
  try {
    return await insertAudioFile(ctx.db, {
      name,
      audio_file: relative,
      content_type: kind.contentType,
      duration: audio.durationSeconds.toFixed(3),
      sample_rate: audio.sampleRate,
      channels: audio.channels,
      user_id: user,
    });
  } catch (err) {
    await removeQuietly(storedPath(dataDir, relative));
    throw err;
  }
}

/** Deletes a record and its file; 409 while a section or a campaign uses it. */
export async function removeAudioFile(db: Db, dataDir: string, id: number): Promise<void> {
  if (await audioFileInUse(db, id)) throw conflict(AudioMessages.inUse);
  // A section made between the check and the delete is caught by the foreign key (23503 → 409).
  const row = await deleteAudioFile(db, id);
  if (row) await removeQuietly(storedPath(dataDir, row.audio_file));
}
