/**
 * MP3 (MPEG-1/2/2.5 layers I–III): frames found by `codec-parser` (which only trusts a frame
 * followed by another), decoded by `mpg123-decoder` (mpg123 in WebAssembly).
 *
 * A file is MP3 only if most of it is: the frames must cover at least MIN_FRAME_COVERAGE of the
 * bytes after the tags, and at most MAX_FRAME_ERRORS of them may fail to decode. An ID3 header
 * followed by random bytes has no run of frames, so it fails.
 */
import CodecParser, { type CodecFrame, type MPEGHeader } from 'codec-parser';
import { MPEGDecoder } from 'mpg123-decoder';
import { AudioDecodeError } from './decode-error.ts';
import { drain, type PcmSink, type StreamFormat, yieldToEventLoop } from './pcm.ts';

const MIN_FRAME_COVERAGE = 0.9;
const MAX_FRAME_ERRORS = 0.1;
/** Bytes handed to the parser at a time, so that only a few hundred frames are held at once. */
const CHUNK_BYTES = 16 * 1024; // about 10 ms of decoding between two yields

/** Size of a leading ID3v2 tag (header, body and optional footer), 0 when there is none. */
function id3v2Size(bytes: Uint8Array): number {
  if (bytes.length < 10 || bytes[0] !== 0x49 || bytes[1] !== 0x44 || bytes[2] !== 0x33) return 0;
  const body = ((bytes[6] & 0x7f) << 21) | ((bytes[7] & 0x7f) << 14) | ((bytes[8] & 0x7f) << 7) | (bytes[9] & 0x7f);
  const footer = bytes[5] & 0x10 ? 10 : 0;
  return Math.min(bytes.length, 10 + body + footer);
}

/** 128 when the file ends with an ID3v1 tag ("TAG" …). */
function id3v1Size(bytes: Uint8Array): number {
  const at = bytes.length - 128;
  return at >= 0 && bytes[at] === 0x54 && bytes[at + 1] === 0x41 && bytes[at + 2] === 0x47 ? 128 : 0;
}

/**
 * mpg123-decoder writes every frame error to console.error as well as returning it; we count
 * the returned errors and judge the file, so the console copy (one line per bad frame of a
 * hostile upload) is silenced while the synchronous call runs.
 */
function quietly<T>(work: () => T): T {
  const original = console.error;
  console.error = () => {};
  try {
    return work();
  } finally {
    console.error = original;
  }
}

/** Decodes a whole MP3 file into `sink`; throws AudioDecodeError when most of it is not MP3. */
export async function decodeMpeg(bytes: Uint8Array, sink: PcmSink): Promise<StreamFormat> {
  const parser = new CodecParser<CodecFrame>('audio/mpeg', { enableLogging: false, enableFrameCRC32: false });
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    let frameBytes = 0;
    let frames = 0;
    let errors = 0;
    let first: MPEGHeader | undefined;
    const decode = (found: CodecFrame[]) => {
      if (found.length === 0) return;
      const head = (first ??= found[0].header as MPEGHeader);
      // A frame in another rate or channel mode is not part of this stream (random bytes can
      // look like a pair of frames): it is left out, and counts against the coverage.
      const batch = found.filter(({ header }) => header.sampleRate === head.sampleRate && header.channels === head.channels);
      if (batch.length === 0) return;
      for (const frame of batch) frameBytes += frame.data.length;
      frames += batch.length;
      const out = quietly(() => decoder.decodeFrames(batch.map((f) => f.data)));
      errors += out.errors.length;
      // mpg123 always answers in stereo; a mono stream's second channel is a copy of the first.
      if (out.samplesDecoded > 0) sink(out.channelData.slice(0, head.channels), out.samplesDecoded, out.sampleRate);
    };
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      decode(drain(parser.parseChunk(bytes.subarray(at, at + CHUNK_BYTES))));
      await yieldToEventLoop();
    }
    decode(drain(parser.flush()));
    judge(bytes, { frameBytes, frames, errors });
    return { sampleRate: first!.sampleRate, channels: first!.channels };
  } finally {
    decoder.free();
  }
}

function judge(bytes: Uint8Array, { frameBytes, frames, errors }: { frameBytes: number; frames: number; errors: number }) {
  if (frames === 0) throw new AudioDecodeError('The file is not WAV, MP3 or OGG audio.');
  const payload = bytes.length - id3v2Size(bytes) - id3v1Size(bytes);
  const coverage = frameBytes / Math.max(1, payload);
  if (coverage < MIN_FRAME_COVERAGE) {
    throw new AudioDecodeError(
      `The MP3 is damaged: only ${Math.floor(coverage * 100)}% of it is MPEG audio frames (at least ${MIN_FRAME_COVERAGE * 100}% is required).`,
    );
  }
  if (errors > frames * MAX_FRAME_ERRORS) {
    throw new AudioDecodeError(`The MP3 is damaged: ${errors} of its ${frames} frames do not decode.`);
  }
}
