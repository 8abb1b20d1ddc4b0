/**
 * Audio files on disk, under DATA_DIR/audio/. The server names every file itself
 * (`audio-file-XXXXX-NNNNNNNNNN.<ext>`), never from the client, with the extension of what its
 * bytes are (audio-files.sniff.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { parseFile } from 'music-metadata';
import { type AudioKind, SNIFF_BYTES } from './audio-files.sniff.ts';

export const AUDIO_DIR = 'audio';

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

/** The first bytes of a file, for audioKindOf, and its size. */
export async function readHead(file: string): Promise<{ head: Buffer; size: number }> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    return { head, size };
  } finally {
    await handle.close();
  }
}

/** Moves a checked temporary file to its stored name; returns the path relative to DATA_DIR. */
export async function keep(dataDir: string, temp: string, kind: AudioKind): Promise<string> {
  const relative = path.posix.join(AUDIO_DIR, generatedName(kind));
  await fs.promises.rename(temp, storedPath(dataDir, relative));
  return relative;
}

/** Duration in seconds (3 decimals), or null when the file cannot be read as audio. */
export async function readDuration(file: string): Promise<string | null> {
  try {
    // duration: true makes the parser read to the end (Ogg has no duration in its headers).
    const { format } = await parseFile(file, { duration: true, skipCovers: true });
    return format.duration !== undefined && Number.isFinite(format.duration) ? format.duration.toFixed(3) : null;
  } catch {
    return null;
  }
}

/** Removes a file; one already gone is not an error. */
export async function removeQuietly(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true });
}
