/**
 * Text to speech through a command-line synthesiser on this machine: `espeak-ng` (or `espeak`),
 * else `flite`. Each writes a WAV file that the prompt cache decodes like any audio file.
 * With none installed, speaking rejects with a TtsUnavailableError the driver puts in the
 * call's result.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

export class TtsUnavailableError extends Error {
  override readonly name = 'TtsUnavailableError';
  constructor() {
    super('no text-to-speech engine installed: install espeak-ng (or flite) to speak sections without an audio file');
  }
}

interface Engine {
  command: string;
  args(text: string, out: string): string[];
}

const candidates: Engine[] = [
  { command: 'espeak-ng', args: (text, out) => ['-w', out, '--', text] },
  { command: 'espeak', args: (text, out) => ['-w', out, '--', text] },
  { command: 'flite', args: (text, out) => ['-t', text, '-o', out] },
];

const found = new Map<string, Promise<Engine | undefined>>();

/** Finds the first synthesiser on PATH, once per PATH value. */
function engine(): Promise<Engine | undefined> {
  const searchPath = process.env.PATH ?? '';
  let lookup = found.get(searchPath);
  if (!lookup) {
    lookup = (async () => {
      for (const candidate of candidates) if (await onPath(searchPath, candidate.command)) return candidate;
      return undefined;
    })();
    found.set(searchPath, lookup);
  }
  return lookup;
}

async function onPath(searchPath: string, command: string): Promise<boolean> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    try {
      await fs.access(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** Speaks `text` into WAV bytes. */
export async function synthesize(text: string): Promise<Uint8Array> {
  const tts = await engine();
  if (!tts) throw new TtsUnavailableError();
  const out = path.join(os.tmpdir(), `dialer-tts-${randomUUID()}.wav`);
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(tts.command, tts.args(text, out), { timeout: 30_000 }, (err, _stdout, stderr) => {
        if (err) reject(new Error(`${tts.command} failed: ${String(stderr).trim() || err.message}`));
        else resolve();
      });
    });
    return await fs.readFile(out);
  } finally {
    await fs.rm(out, { force: true });
  }
}
