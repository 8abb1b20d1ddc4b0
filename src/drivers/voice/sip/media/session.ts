/**
 * One call's RTP: a UDP socket on an even port of the range, G.711 frames sent on the engine's
 * shared tick (prompt audio, relayed audio, or silence — a stream that never pauses keeps NAT
 * bindings open and carriers' RTP timeouts quiet), and the far end's packets counted (RFC 3550
 * statistics), decoded and handed to whoever listens: recorder, AMD, beep detector, relay.
 */
import { randomBytes } from 'node:crypto';
import type dgram from 'node:dgram';
import { AmdDetector, type AmdParams } from './amd.ts';
import { TelephoneEventReceiver } from './dtmf.ts';
import { SampleFifo } from './fifo.ts';
import { decodeG711, encodedPrompt, encodeG711, FRAME_MS, FRAME_SAMPLES, type G711PayloadType, silenceFrame } from './g711.ts';
import type { MediaSession, RtpEndpoint } from './index.ts';
import type { Pacer } from './pacer.ts';
import type { PromptCache, PromptSource } from './prompts.ts';
import { CallRecorder } from './call-recorder.ts';
import { recordAudio } from './record.ts';
import { buildRtp, parseRtp, ReceiveStats } from './rtp.ts';
import { BeepDetector } from './tone.ts';

/** Behind by more than this (an event-loop stall), the frames missed are skipped, not burst. */
const MAX_LAG_MS = 100;
/** With no packet from the far end for this long, listeners get silence so their clocks run on. */
const FILL_AFTER_MS = 100;
/** Relay queue: at most 200 ms of the other leg's audio waits to be sent. */
const RELAY_SAMPLES = 1600;
/** A source other than the remote is latched onto only after the remote was silent this long. */
const LATCH_QUIET_MS = 2000;
/** Shared by every session; listeners copy what they keep. */
const SILENCE = new Int16Array(FRAME_SAMPLES);

interface Playback {
  /** The prompt in the call's codec (one byte a sample), shared by every call playing it. */
  audio: Buffer;
  offset: number;
  done: () => void;
}

export interface SessionDeps {
  socket: dgram.Socket;
  local: RtpEndpoint;
  pacer: Pacer;
  prompts: PromptCache;
  onClose: () => void;
}

export class RtpSession implements MediaSession {
  readonly local: RtpEndpoint;
  private remote: RtpEndpoint | undefined;
  private payloadType: G711PayloadType = 0;
  private telephoneEvent: number | undefined;
  private readonly ssrc = randomBytes(4).readUInt32BE(0);
  private sequence = randomBytes(2).readUInt16BE(0);
  private timestamp = randomBytes(4).readUInt32BE(0);
  private marker = true;
  private nextDue = 0;
  private sent = 0;
  private playback: Playback | undefined;
  private playGeneration = 0;
  private readonly relayIn = new SampleFifo(RELAY_SAMPLES);
  private relayPeer: RtpSession | undefined;
  private readonly frame = new Int16Array(FRAME_SAMPLES);
  private readonly rx = new ReceiveStats();
  private lastAudioAt = 0;
  private heardFromRemoteAt = -Infinity;
  private readonly audioListeners = new Set<(pcm: Int16Array) => void>();
  private readonly closeListeners = new Set<() => void>();
  private readonly dtmfListeners = new Set<(digit: string) => void>();
  private readonly keys = new TelephoneEventReceiver((key) => this.injectDtmf(key.digit));
  private closed = false;
  /** The whole call's recording (recordCall), fed with both legs while it runs. */
  private recorder: CallRecorder | undefined;

  readonly dtmf = {
    on: (listener: (digit: string) => void): (() => void) => {
      this.dtmfListeners.add(listener);
      return () => this.dtmfListeners.delete(listener);
    },
  };

  constructor(private readonly deps: SessionDeps) {
    this.local = deps.local;
    deps.socket.on('message', (msg, rinfo) => this.receive(msg, rinfo));
    deps.socket.on('error', () => {}); // ICMP port-unreachable etc.: RTP is best effort
  }

  start(remote: RtpEndpoint, codec: { payloadType: 0 | 8; telephoneEvent?: number }): void {
    if (this.closed) return;
    this.remote = { address: remote.address, port: remote.port };
    this.payloadType = codec.payloadType;
    this.telephoneEvent = codec.telephoneEvent;
    if (this.nextDue === 0) {
      this.nextDue = this.deps.pacer.upcoming;
      this.lastAudioAt = this.deps.pacer.now();
      this.deps.pacer.add(this);
    }
  }

  async play(source: PromptSource, opts?: { dataDir: string }): Promise<void> {
    const generation = ++this.playGeneration;
    this.finishPlayback();
    const pcm = await this.deps.prompts.load(source, opts?.dataDir);
    // Stopped, closed or replaced while the prompt was being read: nothing to play.
    if (generation !== this.playGeneration || this.closed || pcm.length === 0) return;
    if (!this.remote) throw new Error('media not started: no remote RTP address yet');
    return new Promise((resolve) => {
      this.playback = { audio: encodedPrompt(this.payloadType, pcm), offset: 0, done: resolve };
      this.marker = true; // a talkspurt starts
    });
  }

  stopPlayback(): void {
    this.playGeneration++;
    this.finishPlayback();
  }

  injectDtmf(digit: string): void {
    for (const listener of [...this.dtmfListeners]) listener(digit);
  }

  record(opts: { file: string; maxSeconds: number; silenceSeconds?: number }): Promise<{ file: string; seconds: number }> {
    return recordAudio(this.tap, opts);
  }

  recordCall(): { write(file: string): Promise<{ file: string; seconds: number }> } {
    const recorder = new CallRecorder();
    this.recorder = recorder;
    // Listening makes the session decode what it hears and fill gaps with silence (pump).
    const off = this.tap.onAudio((pcm) => recorder.onHeard(pcm));
    return {
      write: (file) => {
        off();
        if (this.recorder === recorder) this.recorder = undefined;
        return recorder.write(file);
      },
    };
  }

  detectMachine(opts: Partial<AmdParams> = {}): Promise<'person' | 'machine' | 'unsure'> {
    const detector = new AmdDetector(opts);
    const total = detector.params.totalAnalysisMs;
    return this.listenUntil((pcm) => detector.feed(pcm), 'unsure', total + 1000);
  }

  waitForBeep(timeoutSeconds: number): Promise<boolean> {
    const detector = new BeepDetector();
    return this.listenUntil((pcm) => (detector.feed(pcm) ? true : undefined), false, timeoutSeconds * 1000);
  }

  relayTo(other: MediaSession): () => void {
    if (!(other instanceof RtpSession)) throw new Error('relayTo needs a session of the same media engine');
    this.unrelay();
    other.unrelay();
    this.relayPeer = other;
    other.relayPeer = this;
    return () => this.unrelay();
  }

  stats(): { sent: number; received: number; lost: number; jitterMs: number } {
    return { sent: this.sent, received: this.rx.received, lost: this.rx.lost, jitterMs: this.rx.jitterMs };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopPlayback();
    this.unrelay();
    this.deps.pacer.delete(this);
    this.deps.socket.close();
    this.deps.onClose();
    for (const listener of [...this.closeListeners]) listener();
    this.closeListeners.clear();
    this.audioListeners.clear();
    this.dtmfListeners.clear();
  }

  /** Called on the shared tick: sends the frames due by `now`, keeps listeners' clocks running. */
  pump(now: number): void {
    if (this.closed || !this.remote) return;
    this.keys.flush(now);
    while (now - this.lastAudioAt >= FILL_AFTER_MS) {
      this.lastAudioAt += FRAME_MS;
      if (this.audioListeners.size > 0 || this.relayPeer) this.emitAudio(SILENCE);
    }
    // Half a frame of tolerance: a timer firing a little early still sends its frame.
    while (this.nextDue <= now + FRAME_MS / 2) {
      if (now - this.nextDue > MAX_LAG_MS) {
        const missed = Math.floor((now - this.nextDue) / FRAME_MS);
        this.nextDue += missed * FRAME_MS;
        this.timestamp = (this.timestamp + missed * FRAME_SAMPLES) >>> 0;
        this.marker = true;
        continue;
      }
      this.sendFrame();
      this.nextDue += FRAME_MS;
    }
  }

  private sendFrame(): void {
    const payload = this.nextPayload();
    this.recorder?.onSent(decodeG711(this.payloadType, payload));
    const packet = buildRtp({ payloadType: this.payloadType, marker: this.marker, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc, payload });
    const remote = this.remote as RtpEndpoint;
    this.deps.socket.send(packet, remote.port, remote.address);
    this.sent++;
    this.marker = false;
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
  }

  /** The next 20 ms: the prompt playing, else the relayed leg's audio, else silence. */
  private nextPayload(): Buffer {
    const p = this.playback;
    if (p) {
      const start = p.offset;
      p.offset = Math.min(start + FRAME_SAMPLES, p.audio.length);
      let payload = p.audio.subarray(start, p.offset);
      if (payload.length < FRAME_SAMPLES) {
        // The prompt's last, short frame: padded with silence.
        payload = Buffer.concat([payload, silenceFrame(this.payloadType)], FRAME_SAMPLES);
      }
      if (p.offset >= p.audio.length) this.finishPlayback();
      return payload;
    }
    if (this.relayPeer && this.relayIn.available > 0) {
      this.relayIn.read(this.frame);
      return encodeG711(this.payloadType, this.frame);
    }
    return silenceFrame(this.payloadType);
  }

  private finishPlayback(): void {
    const p = this.playback;
    this.playback = undefined;
    p?.done();
  }

  private receive(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (this.closed || !this.remote) return;
    const packet = parseRtp(msg);
    if (!packet) return;
    const isAudio = packet.payloadType === this.payloadType;
    const isEvent = this.telephoneEvent !== undefined && packet.payloadType === this.telephoneEvent;
    if (!isAudio && !isEvent) return; // comfort noise, other codecs
    const now = this.deps.pacer.now();
    if (rinfo.port !== this.remote.port || rinfo.address !== this.remote.address) {
      // Symmetric RTP: behind a NAT the far end's packets come from where ours must go. Latch
      // only while the signalled address is quiet, so a stray sender cannot take the call over.
      if (now - this.heardFromRemoteAt < LATCH_QUIET_MS) return;
      this.remote = { address: rinfo.address, port: rinfo.port };
    }
    this.heardFromRemoteAt = now;
    const fresh = this.rx.update(packet, now);
    if (isEvent) return this.keys.receive(packet.payload, packet.timestamp, now);
    if (!fresh) return; // a late or duplicated packet: its audio is already past
    this.lastAudioAt = now;
    // Decoded only for someone: a call that just plays prompts does not decode the echo of them.
    if (this.audioListeners.size > 0 || this.relayPeer) this.emitAudio(decodeG711(this.payloadType, packet.payload));
  }

  private emitAudio(pcm: Int16Array): void {
    this.relayPeer?.relayIn.write(pcm);
    for (const listener of [...this.audioListeners]) listener(pcm);
  }

  private unrelay(): void {
    const peer = this.relayPeer;
    this.relayPeer = undefined;
    this.relayIn.clear();
    if (peer?.relayPeer === this) peer.unrelay();
  }

  private readonly tap = {
    onAudio: (listener: (pcm: Int16Array) => void) => {
      this.audioListeners.add(listener);
      return () => this.audioListeners.delete(listener);
    },
    onClose: (listener: () => void) => {
      if (this.closed) queueMicrotask(listener);
      else this.closeListeners.add(listener);
      return () => this.closeListeners.delete(listener);
    },
  };

  /** Feeds the far end's audio to `judge` until it answers, the session closes or the time is up. */
  private listenUntil<T>(judge: (pcm: Int16Array) => T | undefined, fallback: T, timeoutMs: number): Promise<T> {
    return new Promise((resolve) => {
      const settle = (value: T) => {
        offAudio();
        offClose();
        clearTimeout(timer);
        resolve(value);
      };
      const offAudio = this.tap.onAudio((pcm) => {
        const verdict = judge(pcm);
        if (verdict !== undefined) settle(verdict);
      });
      const offClose = this.tap.onClose(() => settle(fallback));
      const timer = setTimeout(() => settle(fallback), timeoutMs);
    });
  }
}

