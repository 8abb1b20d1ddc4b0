/**
 * What the telephony drivers can play. The SIP driver decodes a prompt, mixes it to mono and
 * resamples it to 8 kHz for G.711, FreeSWITCH plays the file itself; both are safe within these
 * bounds, and an upload outside them is refused at once rather than failing mid-call.
 */
import type { AudioInfo } from './probe.ts';

export const PlayableAudio = {
  /** Mono or stereo: more channels would be mixed down blindly (which is the voice?). */
  minChannels: 1,
  maxChannels: 2,
  /** 8 kHz is the telephone's own rate; below it speech is lost, above 48 kHz is not audio for a call. */
  minSampleRate: 8_000,
  maxSampleRate: 48_000,
  /** One 20 ms RTP packet: anything shorter plays nothing at all. */
  minSeconds: 0.02,
  /**
   * Ten minutes: a prompt or voicemail message is far shorter, and the SIP driver holds the
   * decoded samples of what it plays (10 minutes of 48 kHz stereo is 230 MB before mixing).
   */
  maxSeconds: 600,
} as const;

/** Why `info` cannot be played on a call, or undefined when it can. */
export function unplayableReason(info: AudioInfo): string | undefined {
  const p = PlayableAudio;
  if (info.channels < p.minChannels || info.channels > p.maxChannels) {
    return `The audio has ${info.channels} channels; calls play mono or stereo audio (1 or 2 channels).`;
  }
  if (info.sampleRate < p.minSampleRate || info.sampleRate > p.maxSampleRate) {
    return `The audio's sample rate is ${info.sampleRate} Hz; calls play audio sampled at 8,000 to 48,000 Hz.`;
  }
  if (info.durationSeconds < p.minSeconds) {
    return `The audio lasts ${info.durationSeconds.toFixed(3)} s; at least ${p.minSeconds} s is needed.`;
  }
  if (info.durationSeconds > p.maxSeconds) {
    return `The audio lasts ${Math.round(info.durationSeconds)} s; at most ${p.maxSeconds} s (10 minutes) can be played.`;
  }
  return undefined;
}
