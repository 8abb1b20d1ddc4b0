/**
 * Why bytes are not audio we can play. Its message is written for the person who uploaded the
 * file (the audio-files resource shows it under `audio_file`).
 */
export class AudioDecodeError extends Error {
  override name = 'AudioDecodeError';
}
