/**
 * PLACEHOLDER until the media module is merged (issue 12, owned by the media work): only the
 * interface the signalling side is written against, and a factory that throws. The lead
 * replaces this file with the real module (RTP, G.711, prompts, RFC 4733, recording, AMD).
 */
export interface RtpEndpoint {
  address: string;
  port: number;
}
export interface MediaOptions {
  bindAddress: string;
  /** Advertised in SDP. */
  rtpAddress?: string;
  portRange: [number, number];
}
export interface AmdParams {
  initialSilenceMs: number;
  greetingMs: number;
  afterGreetingSilenceMs: number;
  totalAnalysisMs: number;
  minWordMs: number;
  betweenWordsSilenceMs: number;
  maxWords: number;
  silenceThreshold: number;
}
export interface MediaSession {
  readonly local: RtpEndpoint;
  start(remote: RtpEndpoint, codec: { payloadType: 0 | 8; telephoneEvent?: number }): void;
  play(source: { audioFile?: string | null; text?: string | null }, opts?: { dataDir: string }): Promise<void>;
  stopPlayback(): void;
  readonly dtmf: { on(listener: (digit: string) => void): () => void };
  injectDtmf(digit: string): void;
  record(opts: { file: string; maxSeconds: number; silenceSeconds?: number }): Promise<{ file: string; seconds: number }>;
  detectMachine(opts?: Partial<AmdParams>): Promise<'person' | 'machine' | 'unsure'>;
  waitForBeep(timeoutSeconds: number): Promise<boolean>;
  relayTo(other: MediaSession): () => void;
  stats(): { sent: number; received: number; lost: number; jitterMs: number };
  close(): void;
}

export function createMediaEngine(_opts: MediaOptions): { open(): Promise<MediaSession>; close(): Promise<void> } {
  throw new Error('media not merged');
}
