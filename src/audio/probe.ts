/**
 * What an audio file is, found by decoding all of it without keeping the samples: memory
 * stays at one block whatever the file's length. Used to judge uploads.
 */
import type { AudioFormat } from './pcm.ts';
import { decodeStream, type StreamOptions } from './stream.ts';

export interface AudioInfo {
  format: AudioFormat;
  sampleRate: number;
  channels: number;
  durationSeconds: number;
}

/** Throws AudioDecodeError (decode-error.ts) when the bytes are not audio we can decode. */
export async function probeAudio(bytes: Uint8Array, options: StreamOptions = {}): Promise<AudioInfo> {
  const { format, sampleRate, channels, frames } = await decodeStream(bytes, () => {}, options);
  return { format, sampleRate, channels, durationSeconds: frames / sampleRate };
}
