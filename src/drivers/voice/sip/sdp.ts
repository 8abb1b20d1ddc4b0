/**
 * SDP offer and answer (RFC 3264) through sdp-transform: we offer G.711 in the gateway's codec
 * order plus telephone-event (RFC 4733) and take the first of our codecs the answer kept.
 */
import sdpTransform from 'sdp-transform';
import { Codec, type CodecName } from './settings.ts';

/**
 * Our telephone-event payload type in the offer. 96, not the customary 101: carriers echo the
 * offer's number, and some senders use 96 whatever was negotiated (sipp 3.6's play_dtmf); the
 * session takes keys only on the answer's number, so matching those costs nothing and keeps them.
 */
export const TELEPHONE_EVENT_PT = 96;

export function offerSdp(local: { address: string; port: number }, codecs: CodecName[], sessionId: number): string {
  const pts = codecs.map((c) => Codec[c]);
  const ip4 = !local.address.includes(':');
  return sdpTransform.write({
    version: 0,
    origin: { username: 'dialer', sessionId, sessionVersion: 1, netType: 'IN', ipVer: ip4 ? 4 : 6, address: local.address },
    name: 'dialer',
    connection: { version: ip4 ? 4 : 6, ip: local.address },
    timing: { start: 0, stop: 0 },
    media: [
      {
        type: 'audio',
        port: local.port,
        protocol: 'RTP/AVP',
        payloads: [...pts, TELEPHONE_EVENT_PT].join(' '),
        rtp: [
          ...codecs.map((c) => ({ payload: Codec[c], codec: c, rate: 8000 })),
          { payload: TELEPHONE_EVENT_PT, codec: 'telephone-event', rate: 8000 },
        ],
        fmtp: [{ payload: TELEPHONE_EVENT_PT, config: '0-16' }],
        ptime: 20,
        direction: 'sendrecv',
      },
    ],
  });
}

export interface NegotiatedMedia {
  remote: { address: string; port: number };
  payloadType: 0 | 8;
  /** The answer's telephone-event payload type, when it kept one. */
  telephoneEvent?: number;
}

/** What the answer chose, or null when it kept none of our codecs (or is not SDP). */
export function readAnswer(sdp: string, codecs: CodecName[]): NegotiatedMedia | null {
  let parsed: ReturnType<typeof sdpTransform.parse>;
  try {
    parsed = sdpTransform.parse(sdp);
  } catch {
    return null;
  }
  const audio = parsed.media?.find((m) => m.type === 'audio' && m.port > 0);
  const ip = audio?.connection?.ip ?? parsed.connection?.ip;
  if (!audio || !ip) return null;
  const offered = String(audio.payloads ?? '').split(/\s+/).map(Number);
  const ours = codecs.map((c) => Codec[c] as 0 | 8);
  const payloadType = offered.find((pt): pt is 0 | 8 => (ours as number[]).includes(pt));
  if (payloadType === undefined) return null;
  const event = audio.rtp?.find((r) => r.codec.toLowerCase() === 'telephone-event' && r.rate === 8000);
  return { remote: { address: ip, port: audio.port }, payloadType, telephoneEvent: event?.payload };
}
