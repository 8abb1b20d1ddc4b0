/**
 * Sample-rate conversion to 8 kHz for prompts: a windowed-sinc (Blackman) low-pass
 * interpolator. The cut-off sits just below the lower Nyquist frequency, so a 44.1/48 kHz
 * prompt's content above 4 kHz is filtered out instead of folding back into the band.
 * Runs once per prompt (the result is cached), so clarity wins over speed.
 */

const HALF_TAPS = 16; // zero crossings of the sinc on each side, at the output rate when decimating

/** Mixes channels to mono by averaging. */
export function toMono(channels: Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0];
  const out = new Float32Array(channels[0]?.length ?? 0);
  for (const ch of channels) for (let i = 0; i < out.length; i++) out[i] += ch[i] / channels.length;
  return out;
}

/** Resamples `input` from `fromRate` to `toRate` (any ratio). */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return input;
  const ratio = toRate / fromRate;
  // Low-pass at 0.95 of the lower Nyquist, expressed in input samples.
  const cutoff = 0.95 * Math.min(1, ratio);
  const halfWidth = Math.ceil(HALF_TAPS / cutoff);
  const outLength = Math.floor(input.length * ratio);
  const table = kernelTable(cutoff, halfWidth);
  const out = new Float32Array(outLength);
  for (let n = 0; n < outLength; n++) {
    const center = n / ratio;
    const first = Math.max(0, Math.ceil(center - halfWidth));
    const last = Math.min(input.length - 1, Math.floor(center + halfWidth));
    let acc = 0;
    for (let k = first; k <= last; k++) {
      // Symmetric kernel looked up by |x| with linear interpolation between table points.
      const pos = Math.abs(k - center) * STEPS;
      const i = Math.floor(pos);
      const frac = pos - i;
      acc += input[k] * (table[i] + (table[i + 1] - table[i]) * frac);
    }
    out[n] = acc;
  }
  return out;
}

const STEPS = 256; // table points per input sample

function kernelTable(cutoff: number, halfWidth: number): Float32Array {
  const table = new Float32Array(halfWidth * STEPS + 2);
  for (let i = 0; i < table.length; i++) table[i] = i / STEPS > halfWidth ? 0 : kernel(i / STEPS, cutoff, halfWidth);
  return table;
}

function kernel(x: number, cutoff: number, halfWidth: number): number {
  const t = x * cutoff;
  const sinc = t === 0 ? 1 : Math.sin(Math.PI * t) / (Math.PI * t);
  const w = 0.42 + 0.5 * Math.cos((Math.PI * x) / halfWidth) + 0.08 * Math.cos((2 * Math.PI * x) / halfWidth);
  return cutoff * sinc * w;
}

/** Float [-1, 1] to 16-bit PCM, clipped. */
export function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round(samples[i] * 32767);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}
