/**
 * WAV (RIFF/WAVE): chunks read by `wavefile`, samples converted here. The header is checked
 * against itself before anything is decoded: a file claiming 0 or 65,535 channels, or blocks
 * whose size does not match its channels and sample width, is not a WAV we can read.
 */
import alawmulaw from 'alawmulaw';
import wavefilePkg from 'wavefile';
import { AudioDecodeError } from './decode-error.ts';
import { MAX_DECODED_CHANNELS, type PcmSink, type StreamFormat, yieldToEventLoop } from './pcm.ts';

const { WaveFile } = wavefilePkg;

/** The `wFormatTag` values we decode (and 0xFFFE, which names one of them in its subformat). */
const WavEncoding = { Pcm: 1, Float: 3, ALaw: 6, MuLaw: 7, Extensible: 0xfffe } as const;

/** Frames converted per block handed to the sink. */
const BLOCK_FRAMES = 16_384;

type SampleReader = (view: DataView, offset: number) => number;

/** How to read one sample of `encoding` at `bits`, or undefined when we do not decode it. */
function readerFor(encoding: number, bits: number): SampleReader | undefined {
  if (encoding === WavEncoding.Pcm) {
    if (bits === 8) return (v, o) => (v.getUint8(o) - 128) / 128; // 8-bit PCM is unsigned
    if (bits === 16) return (v, o) => v.getInt16(o, true) / 32_768;
    if (bits === 24) return (v, o) => ((v.getInt8(o + 2) << 16) | v.getUint16(o, true)) / 8_388_608;
    if (bits === 32) return (v, o) => v.getInt32(o, true) / 2_147_483_648;
  }
  const clamp = (x: number) => (Number.isFinite(x) ? Math.max(-1, Math.min(1, x)) : 0);
  if (encoding === WavEncoding.Float && bits === 32) return (v, o) => clamp(v.getFloat32(o, true));
  if (encoding === WavEncoding.Float && bits === 64) return (v, o) => clamp(v.getFloat64(o, true));
  if (encoding === WavEncoding.ALaw && bits === 8) return (v, o) => alawmulaw.alaw.decodeSample(v.getUint8(o)) / 32_768;
  if (encoding === WavEncoding.MuLaw && bits === 8) return (v, o) => alawmulaw.mulaw.decodeSample(v.getUint8(o)) / 32_768;
  return undefined;
}

interface WavHeader {
  audioFormat: number;
  numChannels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
  subformat: number[];
}

function parse(bytes: Uint8Array) {
  try {
    const wav = new WaveFile(bytes);
    return { fmt: wav.fmt as WavHeader, data: wav.data as { chunkSize: number; samples: Uint8Array } };
  } catch (err) {
    throw new AudioDecodeError(`The WAV file cannot be read: ${(err as Error).message}.`);
  }
}

/** Checks the header and returns how to read its samples. */
function check(fmt: WavHeader, data: { chunkSize: number; samples: Uint8Array }): SampleReader {
  const { numChannels: channels, bitsPerSample: bits, sampleRate } = fmt;
  const encoding = fmt.audioFormat === WavEncoding.Extensible ? (fmt.subformat?.[0] ?? 0) : fmt.audioFormat;
  const read = readerFor(encoding, bits);
  if (!read) {
    throw new AudioDecodeError(
      `This WAV encoding (format ${encoding}, ${bits} bits) is not supported: use PCM (8, 16, 24 or 32 bits), float, A-law or µ-law.`,
    );
  }
  if (channels < 1 || channels > MAX_DECODED_CHANNELS) {
    throw new AudioDecodeError(`The WAV header claims ${channels} channels; a WAV file has 1 to ${MAX_DECODED_CHANNELS}.`);
  }
  if (!(sampleRate > 0)) throw new AudioDecodeError(`The WAV header claims a sample rate of ${sampleRate} Hz.`);
  if (fmt.blockAlign !== (channels * bits) / 8) {
    throw new AudioDecodeError(
      `The WAV header is inconsistent: ${channels} channel(s) of ${bits} bits make blocks of ${(channels * bits) / 8} bytes, not ${fmt.blockAlign}.`,
    );
  }
  if (data.samples.length < data.chunkSize) {
    throw new AudioDecodeError(
      `The WAV file is truncated: its data chunk announces ${data.chunkSize} bytes but only ${data.samples.length} follow.`,
    );
  }
  return read;
}

/** Decodes a whole WAV file into `sink`, block by block. */
export async function decodeWav(bytes: Uint8Array, sink: PcmSink): Promise<StreamFormat> {
  const { fmt, data } = parse(bytes);
  const read = check(fmt, data);
  const { numChannels: channels, blockAlign } = fmt;
  const width = blockAlign / channels;
  const view = new DataView(data.samples.buffer, data.samples.byteOffset, data.samples.byteLength);
  const total = Math.floor(data.samples.length / blockAlign); // a trailing partial block is dropped
  for (let start = 0; start < total; start += BLOCK_FRAMES) {
    const frames = Math.min(BLOCK_FRAMES, total - start);
    const out = Array.from({ length: channels }, () => new Float32Array(frames));
    for (let i = 0; i < frames; i++) {
      const at = (start + i) * blockAlign;
      for (let c = 0; c < channels; c++) out[c][i] = read(view, at + c * width);
    }
    sink(out, frames, fmt.sampleRate);
    await yieldToEventLoop();
  }
  return { sampleRate: fmt.sampleRate, channels };
}
