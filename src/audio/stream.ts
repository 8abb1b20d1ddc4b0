/**
 * Picks the decoder by the file's first bytes and runs it to the end, handing blocks of
 * samples to a sink. decodeAudio (decode.ts) keeps the blocks; probeAudio (probe.ts) only
 * counts them, so judging a 20 MB upload never holds its decoded samples.
 */
import { AudioDecodeError } from './decode-error.ts';
import { decodeMpeg } from './mpeg.ts';
import { decodeOgg } from './ogg.ts';
import { AudioFormat, type PcmSink, type StreamFormat } from './pcm.ts';
import { decodeWav } from './wav.ts';

const startsWith = (bytes: Uint8Array, text: string, at = 0) =>
  bytes.length >= at + text.length && [...text].every((ch, i) => bytes[at + i] === ch.charCodeAt(0));

/** The container named by the first bytes; anything else is tried as MP3 (it has no magic). */
function formatOf(bytes: Uint8Array): AudioFormat {
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WAVE', 8)) return AudioFormat.Wav;
  if (startsWith(bytes, 'OggS')) return AudioFormat.Ogg;
  return AudioFormat.Mp3;
}

const decoders = { wav: decodeWav, mp3: decodeMpeg, ogg: decodeOgg } as const;

export interface StreamOptions {
  /** Stop, with AudioDecodeError, as soon as more than this much audio has been decoded. */
  maxSeconds?: number;
}

/** Decodes all of `bytes` into `sink`; throws AudioDecodeError when they are not audio we read. */
export async function decodeStream(
  bytes: Uint8Array,
  sink: PcmSink,
  { maxSeconds = Infinity }: StreamOptions = {},
): Promise<StreamFormat & { format: AudioFormat; frames: number }> {
  if (bytes.length === 0) throw new AudioDecodeError('The file is empty.');
  const format = formatOf(bytes);
  let frames = 0;
  const { sampleRate, channels } = await decoders[format](bytes, (data, count, rate) => {
    frames += count;
    if (frames / rate > maxSeconds) {
      throw new AudioDecodeError(`The audio is longer than ${maxSeconds} seconds.`);
    }
    sink(data, count, rate);
  }).catch((err: unknown) => {
    if (err instanceof AudioDecodeError) throw err;
    // The parsers throw plain errors (TypeError, RangeError…) on some malformed headers and
    // pages; for the caller that is the same verdict: these bytes do not decode.
    throw new AudioDecodeError(`The ${format.toUpperCase()} file is damaged and cannot be decoded.`, { cause: err });
  });
  if (frames === 0) throw new AudioDecodeError('The file decodes to no audio at all.');
  return { format, sampleRate, channels, frames };
}
