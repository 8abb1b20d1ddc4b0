/**
 * Ogg: pages found by `codec-parser`, then Vorbis packets decoded by
 * `@wasm-audio-decoders/ogg-vorbis` and Opus packets by `opus-decoder` (libvorbis and libopus
 * in WebAssembly). Ogg FLAC and other codecs are refused. A stream whose last page does not
 * carry the end-of-stream flag was cut short, and is refused as truncated.
 */
import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import CodecParser, { type CodecValue, type OggPage, type OpusHeader } from 'codec-parser';
import { OpusDecoder } from 'opus-decoder';
import { AudioDecodeError } from './decode-error.ts';
import { drain, MAX_DECODED_CHANNELS, type PcmSink, type StreamFormat, yieldToEventLoop } from './pcm.ts';

const CHUNK_BYTES = 16 * 1024; // about 10 ms of decoding between two yields
const TRUNCATED = 'The OGG file is truncated: its stream has no end.';
const MAX_PACKET_ERRORS = 0.1;

interface Decoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: unknown[];
}

interface PageDecoder {
  decode(pages: OggPage[]): Promise<Decoded>;
  free(): void;
}

function vorbisDecoder(): PageDecoder {
  const decoder = new OggVorbisDecoder();
  return { decode: async (pages) => (await decoder.ready, decoder.decodeOggPages(pages)), free: () => decoder.free() };
}

/** An Opus decoder set up from the stream's OpusHead (channels, pre-skip, channel mapping). */
function opusDecoder(header: OpusHeader): PageDecoder {
  const decoder = new OpusDecoder({
    preSkip: header.preSkip,
    channels: header.channels,
    streamCount: header.streamCount,
    coupledStreamCount: header.coupledStreamCount,
    channelMappingTable: header.channelMappingTable,
  });
  return {
    decode: async (pages) => {
      await decoder.ready;
      return decoder.decodeFrames(pages.flatMap((page) => page.codecFrames.map((frame) => frame.data)));
    },
    free: () => decoder.free(),
  };
}

/** Decodes a whole Ogg Vorbis or Ogg Opus file into `sink`. */
export async function decodeOgg(bytes: Uint8Array, sink: PcmSink): Promise<StreamFormat> {
  let codec: CodecValue | undefined;
  const parser = new CodecParser<OggPage>('audio/ogg', {
    enableLogging: false,
    enableFrameCRC32: false,
    onCodec: (value) => (codec = value),
  });
  let decoder: PageDecoder | undefined;
  const state = { packets: 0, errors: 0, pages: 0, sampleRate: 0, channels: 0, ended: false };
  const decode = async (pages: OggPage[]) => {
    if (pages.length === 0) return;
    // codec-parser hands on a last page cut short as if it were whole.
    if (!pages.every(isWhole)) throw new AudioDecodeError(TRUNCATED);
    decoder ??= startDecoder(codec, pages);
    if (!decoder) return; // the Opus head is not parsed yet
    state.pages += pages.length;
    state.ended = pages[pages.length - 1].isLastPage;
    state.packets += pages.reduce((n, page) => n + page.codecFrames.length, 0);
    const out = await decoder.decode(pages);
    state.errors += out.errors.length;
    if (out.samplesDecoded === 0) return;
    if (state.channels === 0) {
      state.channels = out.channelData.length;
      state.sampleRate = out.sampleRate;
    }
    if (out.sampleRate !== state.sampleRate || out.channelData.length !== state.channels) {
      throw new AudioDecodeError('The OGG file changes its sample rate or channels midway; re-encode it as one stream.');
    }
    sink(out.channelData, out.samplesDecoded, out.sampleRate);
  };
  try {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      await decode(drain(parser.parseChunk(bytes.subarray(at, at + CHUNK_BYTES))));
      await yieldToEventLoop();
    }
    await decode(drain(parser.flush()));
  } finally {
    decoder?.free();
  }
  return judge(codec, state);
}

/** Whether a page holds all the bytes its segment table announces (RFC 3533 §6). */
function isWhole(page: OggPage): boolean {
  const raw = page.rawData;
  const segments = raw[26] ?? 0;
  let length = 27 + segments;
  for (let i = 0; i < segments; i++) length += raw[27 + i] ?? 0;
  return raw.length >= length;
}

function startDecoder(codec: CodecValue | undefined, pages: OggPage[]): PageDecoder | undefined {
  if (codec === 'vorbis') return vorbisDecoder();
  if (codec === 'opus') {
    const header = pages.find((page) => page.codecFrames.length > 0)?.codecFrames[0].header as OpusHeader | undefined;
    if (!header) return undefined;
    if (header.channels < 1 || header.channels > MAX_DECODED_CHANNELS) {
      throw new AudioDecodeError(`The Opus header claims ${header.channels} channels.`);
    }
    return opusDecoder(header);
  }
  throw new AudioDecodeError(`This OGG file holds ${codec ?? 'an unknown codec'}; only Vorbis and Opus are supported.`);
}

function judge(
  codec: CodecValue | undefined,
  state: { packets: number; errors: number; pages: number; sampleRate: number; channels: number; ended: boolean },
): StreamFormat {
  if (state.pages === 0 || codec === undefined) throw new AudioDecodeError('The OGG file holds no readable audio stream.');
  if (!state.ended) throw new AudioDecodeError(TRUNCATED);
  if (state.errors > state.packets * MAX_PACKET_ERRORS) {
    throw new AudioDecodeError(`The OGG file is damaged: ${state.errors} of its ${state.packets} packets do not decode.`);
  }
  if (state.channels === 0) throw new AudioDecodeError('The OGG file holds no audio.');
  return { sampleRate: state.sampleRate, channels: state.channels };
}

