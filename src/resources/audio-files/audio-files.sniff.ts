/**
 * Tells WAV, MP3 and OGG apart by their first bytes (contract §8: the bytes decide, not the
 * name or the declared type). An MP3 without ID3 tag starts with a bare MPEG frame header, whose
 * 11 sync bits alone also match some text (a UTF-16 byte order mark is FF FE), so such a file
 * is taken only when a second valid frame header follows the first, where its length says.
 */

/** What the bytes of an accepted upload are: the stored extension and content type. */
export const AudioKinds = {
  Wav: { extension: 'wav', contentType: 'audio/wav' },
  Mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  Ogg: { extension: 'ogg', contentType: 'audio/ogg' },
} as const;

export type AudioKind = (typeof AudioKinds)[keyof typeof AudioKinds];

/** Bytes to read for audioKindOf: enough for two MPEG frame headers at the largest frame size. */
export const SNIFF_BYTES = 4096;

/** The kind of audio in `head` (the file's first bytes), or undefined when it is none we take. */
export function audioKindOf(head: Buffer): AudioKind | undefined {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1');
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return AudioKinds.Wav;
  if (head.length >= 27 && ascii(0, 4) === 'OggS' && head[4] === 0) return AudioKinds.Ogg;
  if (isId3Header(head)) return AudioKinds.Mp3;
  const first = mpegFrameLength(head, 0);
  if (first !== undefined && mpegFrameLength(head, first) !== undefined) return AudioKinds.Mp3;
  return undefined;
}

/** "ID3", a version 2–4, and a size in four 7-bit bytes. */
function isId3Header(head: Buffer): boolean {
  if (head.length < 10 || head.toString('latin1', 0, 3) !== 'ID3') return false;
  return head[3] >= 2 && head[3] <= 4 && [6, 7, 8, 9].every((i) => head[i] < 0x80);
}

// Bit rates in kbit/s by [MPEG-1?][layer I, II, III]; index 0 (free) and 15 (bad) are refused.
const BITRATES: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The length of the MPEG audio frame whose header is at `at`, or undefined if there is none. */
function mpegFrameLength(head: Buffer, at: number): number | undefined {
  if (at + 4 > head.length || head[at] !== 0xff || (head[at + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (head[at + 1] >> 3) & 0b11; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5, 1 reserved
  const layer = 4 - ((head[at + 1] >> 1) & 0b11); // 1, 2, 3; 4 is reserved
  const bitrateIndex = head[at + 2] >> 4;
  const rateIndex = (head[at + 2] >> 2) & 0b11;
  const padding = (head[at + 2] >> 1) & 1;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const bitrate = BITRATES[`${version === 3 ? 1 : 2}-${layer}`][bitrateIndex] * 1000;
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  if (layer === 1) return (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  const perSample = layer === 3 && version !== 3 ? 72 : 144;
  return Math.floor((perSample * bitrate) / sampleRate) + padding;
}
