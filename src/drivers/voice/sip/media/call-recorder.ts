/**
 * A whole call's recording (campaign record_calls, issue 16 item 6): both legs of an RTP session,
 * what we heard on the left channel and what we sent on the right, written at the end as a
 * 16-bit 8 kHz stereo WAV. The audio is held in memory until then (32 KB a second of call;
 * callmaxduration bounds it).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import wavefilePkg from 'wavefile';
import { SAMPLE_RATE } from './g711.ts';

const { WaveFile } = wavefilePkg;

export class CallRecorder {
  private readonly heard: Int16Array[] = [];
  private readonly sent: Int16Array[] = [];
  private stopped = false;

  /** 20 ms of the far end's audio (silence filled in for gaps, as the session does for listeners). */
  onHeard(pcm: Int16Array): void {
    if (!this.stopped) this.heard.push(Int16Array.from(pcm));
  }

  /** 20 ms of what we sent (prompts, relayed audio, silence). */
  onSent(pcm: Int16Array): void {
    if (!this.stopped) this.sent.push(pcm);
  }

  /** Stops taking audio and writes `file`; resolves with it and its seconds ('' when nothing was heard or sent). */
  async write(file: string): Promise<{ file: string; seconds: number }> {
    this.stopped = true;
    const join = (chunks: Int16Array[], length: number) => {
      const out = new Int16Array(length);
      let at = 0;
      for (const c of chunks) {
        out.set(c.subarray(0, Math.max(0, length - at)), at);
        at += c.length;
      }
      return out;
    };
    const length = Math.max(sum(this.heard), sum(this.sent));
    if (length === 0) return { file: '', seconds: 0 };
    const wav = new WaveFile();
    wav.fromScratch(2, SAMPLE_RATE, '16', [join(this.heard, length), join(this.sent, length)]);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, wav.toBuffer());
    return { file, seconds: Math.round(length / SAMPLE_RATE) };
  }
}

const sum = (chunks: Int16Array[]) => chunks.reduce((n, c) => n + c.length, 0);
