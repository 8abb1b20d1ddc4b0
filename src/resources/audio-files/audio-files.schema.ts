import { Type } from '@sinclair/typebox';
import { text } from '../../http/fields.ts';
import { userLink } from '../users/users.fields.ts';

/**
 * Fields of the upload form besides the file part (contract §8: `name` and `audio_file`
 * required). The form's `user_id` is read as `user`: a non-admin naming another user is told
 * so under `user` (contract §8).
 */
export const audioFileFields = {
  name: text({ required: true, max: 100, blank: false }),
  user: userLink(),
};

/** Fields an update may change: the file itself is kept (upload a new record to replace it). */
export const audioFileUpdateFields = {
  name: text({ required: true, max: 100, blank: false }),
};

export const AudioFileRecord = Type.Object({
  id: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  name: Type.String(),
  audio_file: Type.String({ description: 'Path of the stored file, relative to DATA_DIR' }),
  duration: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds' }),
  sample_rate: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Hz, as decoded at upload (null for files uploaded before it was recorded)',
  }),
  channels: Type.Union([Type.Integer(), Type.Null()], {
    description: '1 or 2, as decoded at upload (null for files uploaded before it was recorded)',
  }),
  user: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});

/** The upload answer (contract §2). */
export const AudioUploadRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  audio_file: Type.String(),
  user_id: Type.Integer(),
});

/** The multipart form, for the OpenAPI document. */
export const AudioUploadForm = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    audio_file: Type.String({ format: 'binary', description: 'WAV, MP3 or OGG' }),
    user_id: Type.Optional(Type.Integer()),
  },
  { required: ['name', 'audio_file'] },
);
