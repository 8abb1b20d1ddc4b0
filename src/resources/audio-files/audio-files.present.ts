import type { Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import type { AudioFileRow } from './audio-files.repository.ts';
import type { AudioFileRecord, AudioUploadRecord } from './audio-files.schema.ts';

export function presentAudioFile(request: FastifyRequest, row: AudioFileRow): Static<typeof AudioFileRecord> {
  const link = linker(request);
  return {
    id: row.id,
    url: link('audio-files', row.id) as string,
    name: row.name,
    audio_file: row.audio_file,
    duration: row.duration === null ? null : Number(row.duration),
    sample_rate: row.sample_rate,
    channels: row.channels,
    user: link('users', row.user_id) as string,
    created_date: isoTime(row.created_date) as string,
    updated_date: isoTime(row.updated_date) as string,
  };
}

/** The upload answer: id, name, audio_file, user_id (contract §2). */
export function presentUpload(row: AudioFileRow): Static<typeof AudioUploadRecord> {
  return { id: row.id, name: row.name, audio_file: row.audio_file, user_id: row.user_id };
}
