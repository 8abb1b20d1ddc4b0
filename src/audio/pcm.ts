/**
 * What every decoder of this folder hands on: blocks of float samples, one Float32Array per
 * channel, in [-1, 1]. Decoding in blocks keeps memory flat when the caller only counts
 * (the upload check) and lets the caller that keeps the samples (decodeAudio) do so.
 */
export const AudioFormat = { Wav: 'wav', Mp3: 'mp3', Ogg: 'ogg' } as const;
export type AudioFormat = (typeof AudioFormat)[keyof typeof AudioFormat];

/**
 * Receives each decoded block; `frames` is the number of samples in each channel's array. It
 * may throw (an AudioDecodeError) to stop the decoding.
 */
export type PcmSink = (channelData: Float32Array[], frames: number, sampleRate: number) => void;

/** What a decoder learnt from the stream once it has decoded all of it. */
export interface StreamFormat {
  sampleRate: number;
  channels: number;
}

/** Decoders refuse more channels than this: no telephony or music format we read needs more. */
export const MAX_DECODED_CHANNELS = 8;

/**
 * Lets other requests run between blocks: WASM decoding is synchronous, and a 20 MB MP3
 * holds about 20 minutes of audio.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** codec-parser's parseChunk and flush return generators, typed as bare Iterators. */
export const drain = <T>(iterator: Iterator<T>): T[] => [...(iterator as unknown as Iterable<T>)];
