/**
 * Reads the multipart upload form: its text fields, and the `audio_file` part streamed to a
 * temporary file under DATA_DIR (never held in memory). Past MAX_UPLOAD_MB the stream fails
 * with FST_REQ_FILE_TOO_LARGE (→ 413) and nothing is left on disk.
 */
import type { FastifyRequest } from 'fastify';
import { formParts } from '../../http/multipart.ts';
import { removeQuietly, saveToTemp } from './audio-files.storage.ts';

export interface UploadForm {
  /** Text fields of the form (the last value of a repeated name). */
  fields: Record<string, string>;
  /** The temporary file holding the `audio_file` part, when one was sent as a file. */
  temp?: string;
  /** `audio_file` was sent as a text field rather than a file part. */
  fileAsText: boolean;
}

export async function readUploadForm(request: FastifyRequest, dataDir: string): Promise<UploadForm> {
  const form: UploadForm = { fields: {}, fileAsText: false };
  try {
    for await (const part of formParts(request)) {
      if (part.type === 'field') {
        if (part.fieldname === 'audio_file') form.fileAsText = true;
        else form.fields[part.fieldname] = String(part.value);
      } else if (part.fieldname === 'audio_file' && form.temp === undefined) {
        form.temp = await saveToTemp(dataDir, part.file);
      } else {
        part.file.resume(); // a file part we do not read must still be drained
      }
    }
  } catch (err) {
    if (form.temp) await removeQuietly(form.temp);
    throw err;
  }
  return form;
}
