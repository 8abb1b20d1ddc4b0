/** G.711 (RFC 3551 payload types 0 PCMU and 8 PCMA) through `alawmulaw`; 8 kHz, 20 ms frames. */
import alawmulaw from 'alawmulaw';

export const PayloadType = { PCMU: 0, PCMA: 8 } as const;
export type G711PayloadType = (typeof PayloadType)[keyof typeof PayloadType];

export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
/** Samples (and G.711 bytes) in one 20 ms frame. */
export const FRAME_SAMPLES = (SAMPLE_RATE * FRAME_MS) / 1000;

export function encodeG711(pt: G711PayloadType, pcm: Int16Array): Buffer {
  const bytes = pt === PayloadType.PCMA ? alawmulaw.alaw.encode(pcm) : alawmulaw.mulaw.encode(pcm);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeG711(pt: G711PayloadType, payload: Uint8Array): Int16Array {
  return pt === PayloadType.PCMA ? alawmulaw.alaw.decode(payload) : alawmulaw.mulaw.decode(payload);
}

/**
 * A whole prompt encoded once per codec, kept as long as its PCM is (the prompt cache's entry):
 * every call playing it then sends slices of the same bytes instead of encoding each frame.
 */
const encodedPrompts = new WeakMap<Int16Array, Map<G711PayloadType, Buffer>>();
export function encodedPrompt(pt: G711PayloadType, pcm: Int16Array): Buffer {
  let byCodec = encodedPrompts.get(pcm);
  if (!byCodec) encodedPrompts.set(pcm, (byCodec = new Map()));
  let bytes = byCodec.get(pt);
  if (!bytes) byCodec.set(pt, (bytes = encodeG711(pt, pcm)));
  return bytes;
}

/** One encoded frame of silence per codec, built once (µ-law 0xFF, A-law 0xD5). */
const silence = new Map<G711PayloadType, Buffer>();
export function silenceFrame(pt: G711PayloadType): Buffer {
  let frame = silence.get(pt);
  if (!frame) {
    frame = encodeG711(pt, new Int16Array(FRAME_SAMPLES));
    silence.set(pt, frame);
  }
  return frame;
}
