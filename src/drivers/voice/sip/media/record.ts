/**
 * Recording the far end's audio to a 16-bit 8 kHz mono WAV. Stops at `maxSeconds`, after
 * `silenceSeconds` of continuous silence (of audio time, so gaps where the far end sent
 * nothing count too: the session feeds silence for them), or when the session closes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import wavefilePkg from 'wavefile';
import { SAMPLE_RATE } from './g711.ts';
import { meanAbs } from './level.ts';

const { WaveFile } = wavefilePkg;

/** Mean absolute level under which a frame counts as silence (mod_amd's default threshold). */
export const SILENCE_LEVEL = 256;

export interface AudioTap {
  /** Subscribes to the far end's decoded audio; returns the unsubscribe function. */
  onAudio(listener: (pcm: Int16Array) => void): () => void;
  /** Subscribes to the session's close; returns the unsubscribe function. */
  onClose(listener: () => void): () => void;
}

export function recordAudio(
  tap: AudioTap,
  opts: { file: string; maxSeconds: number; silenceSeconds?: number },
): Promise<{ file: string; seconds: number }> {
  const maxSamples = Math.max(0, opts.maxSeconds) * SAMPLE_RATE;
  const silenceLimit = opts.silenceSeconds && opts.silenceSeconds > 0 ? opts.silenceSeconds * SAMPLE_RATE : Infinity;
  const chunks: Int16Array[] = [];
  let samples = 0;
  let silentRun = 0;
  return new Promise((resolve, reject) => {
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      offAudio();
      offClose();
      clearTimeout(timer);
      writeWav(opts.file, chunks, samples).then(() => resolve({ file: opts.file, seconds: samples / SAMPLE_RATE }), reject);
    };
    const offAudio = tap.onAudio((pcm) => {
      const take = Math.min(pcm.length, maxSamples - samples);
      if (take <= 0) return stop();
      chunks.push(take === pcm.length ? pcm.slice() : pcm.slice(0, take));
      samples += take;
      silentRun = meanAbs(pcm) < SILENCE_LEVEL ? silentRun + pcm.length : 0;
      if (samples >= maxSamples || silentRun >= silenceLimit) stop();
    });
    const offClose = tap.onClose(stop);
    // Wall-clock backstop: the audio clock may run slow if the far end's packets stall.
    const timer = setTimeout(stop, opts.maxSeconds * 1000 + 1000);
  });
}

async function writeWav(file: string, chunks: Int16Array[], samples: number): Promise<void> {
  const pcm = new Int16Array(samples);
  let at = 0;
  for (const c of chunks) {
    pcm.set(c, at);
    at += c.length;
  }
  const wav = new WaveFile();
  wav.fromScratch(1, SAMPLE_RATE, '16', pcm);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, wav.toBuffer());
}
