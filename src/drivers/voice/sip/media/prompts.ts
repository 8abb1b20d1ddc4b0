/**
 * Prompts ready to send: audio files under DATA_DIR and spoken texts, decoded and resampled to
 * 8 kHz mono 16-bit ONCE and kept in an LRU bounded by bytes. Concurrent calls asking for the
 * same prompt share one decode.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { decodeAudio } from '../../../../audio/decode.ts';
import { SAMPLE_RATE } from './g711.ts';
import { resample, toInt16, toMono } from './resample.ts';
import { synthesize } from './tts.ts';

export interface PromptSource {
  audioFile?: string | null;
  text?: string | null;
}

export class PromptCache {
  /** Insertion order is recency order: a hit is moved to the end, eviction takes the front. */
  private readonly entries = new Map<string, Int16Array>();
  private readonly loading = new Map<string, Promise<Int16Array>>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /**
   * The 8 kHz PCM of an audio file (relative to `dataDir`, or absolute inside it) or, when there
   * is no file, of the spoken text; an empty prompt when neither is given.
   */
  async load(source: PromptSource, dataDir: string | undefined): Promise<Int16Array> {
    if (source.audioFile) {
      const file = resolveUnder(dataDir, source.audioFile);
      const stat = await fs.stat(file);
      // mtime and size in the key: a re-uploaded file under the same name is decoded again.
      return this.get(`file:${file}:${stat.mtimeMs}:${stat.size}`, async () => fs.readFile(file));
    }
    const text = source.text?.replace(/\s+/g, ' ').trim();
    if (text) return this.get(`tts:${text}`, () => synthesize(text));
    return new Int16Array(0);
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private get(key: string, read: () => Promise<Uint8Array>): Promise<Int16Array> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return Promise.resolve(hit);
    }
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        const pcm = await toTelephone(await read());
        this.store(key, pcm);
        return pcm;
      })().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private store(key: string, pcm: Int16Array): void {
    if (pcm.byteLength > this.maxBytes) return; // too big to keep: played, not cached
    this.entries.set(key, pcm);
    this.bytes += pcm.byteLength;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= old.byteLength;
    }
  }
}

async function toTelephone(bytes: Uint8Array): Promise<Int16Array> {
  const audio = await decodeAudio(bytes);
  return toInt16(resample(toMono(audio.channelData), audio.sampleRate, SAMPLE_RATE));
}

function resolveUnder(dataDir: string | undefined, file: string): string {
  if (!dataDir) return path.resolve(file);
  const root = path.resolve(dataDir);
  const full = path.resolve(root, file);
  if (full !== root && !full.startsWith(root + path.sep)) throw new Error(`audio file ${file} is outside DATA_DIR`);
  return full;
}
