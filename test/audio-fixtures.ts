/**
 * Small, valid audio files generated in code, so that tests upload real WAV, MP3 and OGG bytes
 * (music-metadata reads their duration) without binary fixtures in the repository.
 */

/** A PCM WAV (8 kHz, 16-bit, mono) of `seconds` of silence. */
export function makeWav(seconds: number): Buffer {
  const sampleRate = 8000;
  const bytesPerSample = 2;
  const dataSize = Math.round(seconds * sampleRate) * bytesPerSample;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataSize, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  header.writeUInt16LE(bytesPerSample, 32); // block align
  header.writeUInt16LE(8 * bytesPerSample, 34); // bits per sample
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
