/**
 * A callee's phone for the sip driver's tests: its media is a loopback UDP socket of the test,
 * named in sipp's answer as the call's media address (sipp does the signalling, and cannot keep
 * what it receives). It keeps the audio of the RTP we send it, with arrival times, and may speak:
 * answering our first packet, it sends a recording (PCMU, 20 ms packets, paced by the clock).
 */
import dgram from 'node:dgram';
import alawmulaw from 'alawmulaw';

export interface Phone {
  port: number;
  /** Frames received so far. */
  packets(): number;
  /** Everything received, in order. */
  pcm(): Int16Array;
  /** Milliseconds from the start of its speech to the arrival of the first frame louder than `level` (null: none). */
  firstSoundAfterSpeechMs(level: number): number | null;
  close(): void;
}

const FRAME = 160;

function meanAbs(pcm: Int16Array): number {
  let sum = 0;
  for (const v of pcm) sum += Math.abs(v);
  return pcm.length ? sum / pcm.length : 0;
}

/** `speak` is sent once, or again and again with a second of silence between when `repeat`. */
export async function phone(opts: { speak?: Int16Array; repeat?: boolean } = {}): Promise<Phone> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const frames: { at: number; pcm: Int16Array }[] = [];
  let talking: NodeJS.Timeout | undefined;
  let speechStartedAt = 0;
  socket.on('message', (msg, from) => {
    const pt = msg[1] & 0x7f;
    if (msg.length <= 12 || (pt !== 0 && pt !== 8)) return;
    const payload = msg.subarray(12);
    frames.push({ at: performance.now(), pcm: pt === 8 ? alawmulaw.alaw.decode(payload) : alawmulaw.mulaw.decode(payload) });
    if (opts.speak && !talking) {
      speechStartedAt = performance.now();
      talking = talk(socket, opts.speak, opts.repeat ?? false, from);
    }
  });
  return {
    port: socket.address().port,
    packets: () => frames.length,
    pcm: () => {
      const all = new Int16Array(frames.reduce((n, f) => n + f.pcm.length, 0));
      let at = 0;
      for (const f of frames) {
        all.set(f.pcm, at);
        at += f.pcm.length;
      }
      return all;
    },
    firstSoundAfterSpeechMs: (level) => {
      const loud = frames.find((f) => f.at >= speechStartedAt && meanAbs(f.pcm) > level);
      return loud && speechStartedAt ? loud.at - speechStartedAt : null;
    },
    close: () => {
      clearInterval(talking);
      socket.close();
    },
  };
}

function talk(socket: dgram.Socket, speech: Int16Array, repeat: boolean, to: dgram.RemoteInfo): NodeJS.Timeout {
  const loop = new Int16Array(speech.length + (repeat ? 8000 : 0));
  loop.set(speech);
  const frames = repeat ? Infinity : Math.ceil(loop.length / FRAME);
  const started = performance.now();
  let seq = 0;
  // Every frame due by now is sent (a timer firing late does not slow the speech down); after a
  // recording played once, silence follows, as a line stays open.
  return setInterval(() => {
    for (; seq * 20 <= performance.now() - started; seq++) {
      const frame = new Int16Array(FRAME);
      if (seq < frames) for (let i = 0; i < FRAME; i++) frame[i] = loop[(seq * FRAME + i) % loop.length] ?? 0;
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header.writeUInt16BE(seq & 0xffff, 2);
      header.writeUInt32BE((seq * FRAME) >>> 0, 4);
      header.writeUInt32BE(0x5ca11e, 8);
      socket.send(Buffer.concat([header, Buffer.from(alawmulaw.mulaw.encode(frame))]), to.port, to.address);
    }
  }, 10);
}

/** `pcm` from a little before its first sound that follows half a second of silence. */
export function afterAPause(pcm: Int16Array): Int16Array {
  let quiet = 0;
  for (let i = 0; i + FRAME <= pcm.length; i += FRAME) {
    const loud = meanAbs(pcm.subarray(i, i + FRAME)) > 300;
    if (loud && quiet >= 4000) return pcm.subarray(i - 800);
    quiet = loud ? 0 : quiet + FRAME;
  }
  return new Int16Array(0);
}
