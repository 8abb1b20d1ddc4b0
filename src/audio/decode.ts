/**
 * Decodes a whole WAV, MP3 or OGG (Vorbis or Opus) file to float samples, for whatever plays
 * it (the SIP driver: decode → mono → resample to 8 kHz). Every sample of the file is decoded:
 * a file that is only partly audio throws AudioDecodeError, with a message for a person.
 *
 * The samples are all held: 10 minutes of 48 kHz stereo is 230 MB. Uploads are checked with
 * probeAudio (probe.ts), which decodes the same way but keeps nothing.
 */
import { decodeStream } from './stream.ts';

export { AudioDecodeError } from './decode-error.ts';

export interface DecodedAudio {
  format: 'wav' | 'mp3' | 'ogg';
  sampleRate: number;
  channels: number;
  durationSeconds: number;
  /** one Float32Array per channel, samples in [-1, 1] */
  channelData: Float32Array[];
}

export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  const blocks: Float32Array[][] = [];
  const { format, sampleRate, channels, frames } = await decodeStream(bytes, (data) => blocks.push(data));
  const channelData = Array.from({ length: channels }, (_, c) => {
    const joined = new Float32Array(frames);
    let at = 0;
    for (const block of blocks) {
      joined.set(block[c], at);
      at += block[c].length;
    }
    return joined;
  });
  return { format, sampleRate, channels, durationSeconds: frames / sampleRate, channelData };
}
