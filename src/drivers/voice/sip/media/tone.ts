/**
 * A voicemail beep detector: a steady single tone between 400 and 2000 Hz lasting at least
 * ~150 ms. Each 20 ms frame is scanned with the Goertzel algorithm in 25 Hz steps; a frame is
 * "tonal" when one frequency holds most of the frame's energy (speech spreads its energy over
 * many harmonics), and a beep is enough consecutive tonal frames at the same frequency. The
 * detector answers when the beep is over (the machine records from then: a message started
 * during the beep loses its first words), or once a tone has lasted MAX_TONE_MS.
 */
const LOW_HZ = 400;
const HIGH_HZ = 2000;
const STEP_HZ = 25;
const MIN_LEVEL = 200; // mean absolute level: quieter frames are not a beep
const PURITY = 0.6; // share of the frame's energy at the peak frequency
const MIN_TONE_MS = 150;
const MAX_TONE_MS = 2000;

const frequencies: number[] = [];
for (let f = LOW_HZ; f <= HIGH_HZ; f += STEP_HZ) frequencies.push(f);

export class BeepDetector {
  private runMs = 0;
  private runHz = 0;

  constructor(private readonly sampleRate = 8000) {}

  /** Feeds audio; true once a beep has been heard and has ended (or has gone on MAX_TONE_MS). */
  feed(pcm: Int16Array): boolean {
    const ms = (pcm.length * 1000) / this.sampleRate;
    const tone = this.dominantTone(pcm);
    if (tone && this.runMs > 0 && Math.abs(tone - this.runHz) <= 2 * STEP_HZ) {
      this.runMs += ms;
      return this.runMs >= MAX_TONE_MS;
    }
    const beepOver = this.runMs >= MIN_TONE_MS;
    this.runHz = tone;
    this.runMs = tone ? ms : 0;
    return beepOver;
  }

  /** The frame's dominant frequency when it is a pure enough tone, else 0. */
  private dominantTone(pcm: Int16Array): number {
    const n = pcm.length;
    if (n < 80) return 0;
    let energy = 0;
    let level = 0;
    for (let i = 0; i < n; i++) {
      energy += pcm[i] * pcm[i];
      level += Math.abs(pcm[i]);
    }
    if (level / n < MIN_LEVEL) return 0;
    let bestPower = 0;
    let bestHz = 0;
    for (const hz of frequencies) {
      const power = goertzel(pcm, hz, this.sampleRate);
      if (power > bestPower) {
        bestPower = power;
        bestHz = hz;
      }
    }
    // A pure sine of N samples at the probed frequency gives power = (N/2) · energy.
    return bestPower / ((n / 2) * energy) >= PURITY ? bestHz : 0;
  }
}

function goertzel(pcm: Int16Array, hz: number, sampleRate: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < pcm.length; i++) {
    const s0 = pcm[i] + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}
