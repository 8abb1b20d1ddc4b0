/**
 * Audio files on disk, under DATA_DIR/audio/. The server names every file itself
 * (`audio-file-XXXXX-NNNNNNNNNN.<ext>`), never from the client, with the extension of what its
 * bytes decode as (contract §8).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { AudioFormat } from '../../audio/pcm.ts';

export const AUDIO_DIR = 'audio';

/** The stored extension and content type of each format the decoder reads. */
export const AudioKinds = {
  wav: { extension: 'wav', contentType: 'audio/wav' },
  mp3: { extension: 'mp3', contentType: 'audio/mpeg' },
  ogg: { extension: 'ogg', contentType: 'audio/ogg' },
} as const satisfies Record<AudioFormat, { extension: string; contentType: string }>;

export type AudioKind = (typeof AudioKinds)[AudioFormat];

/** A new stored name: 5 random letters and 10 random digits. */
export function generatedName(kind: AudioKind): string {
  const letters = Array.from(crypto.randomBytes(5), (b) => String.fromCharCode(97 + (b % 26))).join('');
  const digits = Array.from(crypto.randomBytes(10), (b) => String(b % 10)).join('');
  return `audio-file-${letters}-${digits}.${kind.extension}`;
}

/** Absolute path of a stored file from its `audio_file` column (relative to DATA_DIR). */
export function storedPath(dataDir: string, relative: string): string {
  return path.join(dataDir, relative);
}

/**
 * Writes `stream` to a new temporary file under DATA_DIR/audio/ and returns its path. On any
 * failure (the size limit included) the partial file is removed before the error goes on.
 */
export async function saveToTemp(dataDir: string, stream: Readable): Promise<string> {
  const dir = path.join(dataDir, AUDIO_DIR);
  await fs.promises.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.upload-${crypto.randomUUID()}.part`);
  try {
    await pipeline(stream, fs.createWriteStream(temp, { flags: 'wx' }));
  } catch (err) {
    await removeQuietly(temp);
    throw err;
  }
  return temp;
}

/** Moves a checked temporary file to its stored name; returns the path relative to DATA_DIR. */
export async function keep(dataDir: string, temp: string, kind: AudioKind): Promise<string> {
  const relative = path.posix.join(AUDIO_DIR, generatedName(kind));
  await fs.promises.rename(temp, storedPath(dataDir, relative));
  return relative;
}

/** Removes a file; one already gone is not an error. */
export async function removeQuietly(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true });
}
