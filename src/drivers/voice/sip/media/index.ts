/**
 * The `sip` driver's media: RTP sessions speaking G.711 with the far end, one per call leg.
 * Signalling (the SIP driver) opens a session, puts `local` in its SDP, calls `start` with the
 * answer's address and codec, and drives prompts, keys, recording, AMD and relay through it.
 * All sessions of one engine send on one shared 20 ms timer (pacer.ts).
 */
import type { AmdParams } from './amd.ts';
import { Pacer } from './pacer.ts';
import { PortAllocator } from './ports.ts';
import { PromptCache } from './prompts.ts';
import { RtpSession } from './session.ts';

export type { AmdParams } from './amd.ts';
export { AMD_DEFAULTS } from './amd.ts';
export { TtsUnavailableError } from './tts.ts';

export interface RtpEndpoint {
  address: string;
  port: number;
}

export interface MediaOptions {
  bindAddress: string;
  /** Advertised in SDP (a public or NAT address); defaults to bindAddress. */
  rtpAddress?: string;
  portRange: [number, number];
  /** Bytes of decoded prompts kept in memory (default 64 MiB). */
  promptCacheBytes?: number;
  /** Told of an error in a session's send tick (the other sessions go on). */
  onError?: (err: unknown) => void;
}

export interface MediaSession {
  /** What to put in our SDP (c= / m=audio port). */
  readonly local: RtpEndpoint;
  /** Starts sending (silence until a prompt plays) to `remote` with the answer's codec. */
  start(remote: RtpEndpoint, codec: { payloadType: 0 | 8; telephoneEvent?: number }): void;
  /** Plays a file under dataDir, else speaks the text; resolves when done or stopped. */
  play(source: { audioFile?: string | null; text?: string | null }, opts?: { dataDir: string }): Promise<void>;
  stopPlayback(): void;
  /** Keys: RFC 4733 telephone-events, and INFO digits the signalling feeds through injectDtmf. */
  readonly dtmf: { on(listener: (digit: string) => void): () => void };
  injectDtmf(digit: string): void;
  /** Writes the far end's audio to a 16-bit 8 kHz mono WAV. */
  record(opts: { file: string; maxSeconds: number; silenceSeconds?: number }): Promise<{ file: string; seconds: number }>;
  /**
   * Starts recording the whole call, both legs (heard left, sent right); `write` stops it and
   * writes a stereo WAV (file '' when there was no audio).
   */
  recordCall(): { write(file: string): Promise<{ file: string; seconds: number }> };
  detectMachine(opts?: Partial<AmdParams>): Promise<'person' | 'machine' | 'unsure'>;
  /** True when a voicemail beep was heard and is over (tone.ts), false after `timeoutSeconds`. */
  waitForBeep(timeoutSeconds: number): Promise<boolean>;
  /** Bridge transfer: each leg's received audio is sent on the other leg. Returns the unlink. */
  relayTo(other: MediaSession): () => void;
  stats(): { sent: number; received: number; lost: number; jitterMs: number };
  close(): void;
}

export interface MediaEngine {
  open(): Promise<MediaSession>;
  close(): Promise<void>;
}

/** Creates the media side of one SIP driver: its port range, prompt cache and send timer. */
export function createMediaEngine(opts: MediaOptions): MediaEngine {
  const ports = new PortAllocator(opts.portRange);
  const pacer = new Pacer(opts.onError);
  const prompts = new PromptCache(opts.promptCacheBytes);
  const sessions = new Set<RtpSession>();
  const advertised = opts.rtpAddress || opts.bindAddress;
  return {
    async open() {
      const { socket, port } = await ports.bind(opts.bindAddress);
      const session: RtpSession = new RtpSession({
        socket,
        local: { address: advertised, port },
        pacer,
        prompts,
        onClose: () => {
          ports.release(port);
          sessions.delete(session);
        },
      });
      sessions.add(session);
      return session;
    },
    async close() {
      for (const session of [...sessions]) session.close();
    },
  };
}
