/**
 * Audio decoding to float PCM. A minimal WAV-only stand-in (through `wavefile`) with the
 * signature of the full decoder (WAV, MP3, OGG) that replaces this file on merge.
 */
import wavefilePkg from 'wavefile';

const { WaveFile } = wavefilePkg;

export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError';
}

export interface DecodedAudio {
  format: string;
  sampleRate: number;
  channels: number;
  durationSeconds: number;
  /** One Float32Array per channel, samples in [-1, 1]. */
  channelData: Float32Array[];
}

/** Decodes a WAV file's bytes (PCM 8–32 bit, float, A-law, µ-law) to float PCM per channel. */
export async function decodeAudio(bytes: Uint8Array): Promise<DecodedAudio> {
  const wav = new WaveFile();
  try {
    wav.fromBuffer(bytes);
  } catch (err) {
    throw new AudioDecodeError(`not a readable WAV file: ${(err as Error).message}`);
  }
  const fmt = wav.fmt as { numChannels: number; sampleRate: number };
  if (wav.bitDepth === '8a') wav.fromALaw();
  else if (wav.bitDepth === '8m') wav.fromMuLaw();
  else if (wav.bitDepth === '4') wav.fromIMAADPCM();
  const depth = wav.bitDepth;
  const float = depth === '32f' || depth === '64';
  const bits = Number.parseInt(depth, 10);
  if (!float && !(bits >= 8 && bits <= 32)) throw new AudioDecodeError(`unsupported WAV sample format ${depth}`);
  // wavefile returns raw integer values; 8-bit WAV is unsigned (offset 128).
  const offset = !float && bits === 8 ? 128 : 0;
  const scale = float ? 1 : 2 ** (bits - 1);
  const raw = wav.getSamples(false) as unknown;
  const perChannel = (fmt.numChannels > 1 ? raw : [raw]) as ArrayLike<number>[];
  const channelData = perChannel.map((samples) => {
    const out = new Float32Array(samples.length);
    for (let i = 0; i < samples.length; i++) out[i] = (samples[i] - offset) / scale;
    return out;
  });
  const length = channelData[0]?.length ?? 0;
  if (!fmt.sampleRate) throw new AudioDecodeError('WAV file without a sample rate');
  return { format: 'wav', sampleRate: fmt.sampleRate, channels: channelData.length, durationSeconds: length / fmt.sampleRate, channelData };
}
