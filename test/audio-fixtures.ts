/**
 * Small, valid audio files generated in code, so that tests upload real WAV, MP3 and OGG bytes
 * (src/audio decodes every sample of them), and two tiny recordings of speech made by real
 * encoders (test/fixtures/audio/, 1 KB and 5.5 KB), made with:
 *   espeak-ng -w prompt.wav "Press one." && sox prompt.wav -r 8000 -c 1 prompt8k.wav
 *   lame -b 8 -m m prompt8k.wav press-one-8k-mono.mp3
 *   sox prompt.wav -r 16000 -c 2 -C -1 press-one-16k-stereo.ogg
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'audio');

/** Real recordings of "Press one." (0.85 s of speech; the MP3 adds its encoder's padding). */
export const recordings = {
  /** MP3, 8 kHz mono, 8 kbit/s: decodes to 1.008 s. */
  mp3Mono8k: () => fs.readFileSync(path.join(fixturesDir, 'press-one-8k-mono.mp3')),
  /** Ogg Vorbis, 16 kHz stereo: decodes to 0.846 s. */
  oggStereo16k: () => fs.readFileSync(path.join(fixturesDir, 'press-one-16k-stereo.ogg')),
};

/** A PCM WAV (16-bit; 8 kHz mono unless told) of `seconds` of silence. */
export function makeWav(seconds: number, { sampleRate = 8000, channels = 1 } = {}): Buffer {
  const blockAlign = 2 * channels; // 16-bit samples
  const dataSize = Math.round(seconds * sampleRate) * blockAlign;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataSize, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataSize, 40);
  return Buffer.concat([header, Buffer.alloc(dataSize)]);
}

/** MPEG-1 Layer III frames at 32 kbit/s, 44.1 kHz, mono: 1152 samples in 104 bytes each. */
const MP3_SAMPLE_RATE = 44_100;
const MP3_SAMPLES_PER_FRAME = 1152;
const MP3_FRAME_BYTES = Math.floor((144 * 32_000) / MP3_SAMPLE_RATE);

/**
 * An MP3 of about `seconds` (at least two frames) of silence: repeated frames whose header is valid (sync, MPEG-1,
 * Layer III, no CRC, 32 kbit/s, 44.1 kHz, mono) and whose side information is all zero (no
 * audio data: silence).
 */
export function makeMp3(seconds: number): Buffer {
  const frames = Math.max(2, Math.round((seconds * MP3_SAMPLE_RATE) / MP3_SAMPLES_PER_FRAME));
  const frame = Buffer.alloc(MP3_FRAME_BYTES);
  frame.set([0xff, 0xfb, 0x10, 0xc0]); // 0x10: bitrate index 1 (32k), 44.1 kHz, no padding; 0xc0: mono
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n << 24;
  for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  return c >>> 0;
});

/** The Ogg page checksum (CRC-32, polynomial 0x04c11db7, not reflected, initial 0). */
function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]) >>> 0;
  return crc;
}

/** One Ogg page holding one packet (< 255 bytes) ending on it. */
function oggPage(packet: Buffer, sequence: number, granule: bigint, headerType: number): Buffer {
  const page = Buffer.alloc(28 + packet.length);
  page.write('OggS', 0, 'ascii');
  page.writeUInt8(0, 4); // version
  page.writeUInt8(headerType, 5); // 2 = first page of the stream, 4 = last
  page.writeBigUInt64LE(granule, 6);
  page.writeUInt32LE(0x5eed, 14); // stream serial number
  page.writeUInt32LE(sequence, 18);
  page.writeUInt8(1, 26); // one segment
  page.writeUInt8(packet.length, 27);
  packet.copy(page, 28);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/**
 * An Ogg Opus file of about `seconds` of silence: the OpusHead and OpusTags headers, then one
 * page per 20 ms packet (a TOC byte alone: an empty CELT frame, which decoders play as silence).
 */
export function makeOgg(seconds = 1): Buffer {
  const preSkip = 312;
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'ascii');
  head.writeUInt8(1, 8); // version
  head.writeUInt8(1, 9); // channels
  head.writeUInt16LE(preSkip, 10);
  head.writeUInt32LE(48_000, 12); // input sample rate
  head.writeInt16LE(0, 16); // output gain
  head.writeUInt8(0, 18); // mapping family
  const vendor = 'campaign-dialer test';
  const tags = Buffer.alloc(16 + vendor.length);
  tags.write('OpusTags', 0, 'ascii');
  tags.writeUInt32LE(vendor.length, 8);
  tags.write(vendor, 12, 'ascii');
  tags.writeUInt32LE(0, 12 + vendor.length); // no user comments
  const packets = Math.max(1, Math.round(seconds * 50));
  const pages = [oggPage(head, 0, 0n, 2), oggPage(tags, 1, 0n, 0)];
  for (let i = 1; i <= packets; i++) {
    const granule = BigInt(preSkip + i * 960); // 960 samples at 48 kHz = 20 ms
    pages.push(oggPage(Buffer.from([0xf8]), i + 1, granule, i === packets ? 4 : 0));
  }
  return Buffer.concat(pages);
}
