/**
 * Drives sipp's keys-uas.xml scenario far enough for its RTP: one INVITE whose SDP names our
 * session's port, and the ACK of its 200. This is test scaffolding for the media tests only
 * (the SIP driver has its own, real signalling); the far end sending the keys is sipp.
 */
import dgram from 'node:dgram';
import type { RtpEndpoint } from '../../../src/drivers/voice/sip/media/index.ts';

/** Sends the INVITE, ACKs the 200; resolves with the media address sipp answered. */
export async function answeredBySipp(sipPort: number, ourMedia: RtpEndpoint): Promise<{ remote: RtpEndpoint; close(): void }> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  const lp = sock.address().port;
  const sdp = ['v=0', 'o=- 1 1 IN IP4 127.0.0.1', 's=-', `c=IN IP4 ${ourMedia.address}`, 't=0 0', `m=audio ${ourMedia.port} RTP/AVP 0 96`, 'a=rtpmap:0 PCMU/8000', 'a=rtpmap:96 telephone-event/8000', ''].join('\r\n');
  const head = (method: string, branch: string) => [
    `${method} sip:keys@127.0.0.1:${sipPort} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${lp};branch=z9hG4bK-${branch}`,
    'From: <sip:media-test@127.0.0.1>;tag=mt1',
    'Call-ID: media-test-call',
    'Max-Forwards: 70',
  ];
  const answer = new Promise<string>((resolve) => sock.on('message', (m) => {
    const text = m.toString();
    if (text.startsWith('SIP/2.0 200')) resolve(text);
  }));
  const invite = [...head('INVITE', 'inv'), 'To: <sip:keys@127.0.0.1>', 'CSeq: 1 INVITE', `Contact: <sip:media-test@127.0.0.1:${lp}>`, 'Content-Type: application/sdp', `Content-Length: ${sdp.length}`, '', sdp].join('\r\n');
  sock.send(invite, sipPort, '127.0.0.1');
  const ok = await answer;
  const to = /^To:.*$/m.exec(ok)?.[0] ?? 'To: <sip:keys@127.0.0.1>';
  sock.send([...head('ACK', 'ack'), to, 'CSeq: 1 ACK', 'Content-Length: 0', '', ''].join('\r\n'), sipPort, '127.0.0.1');
  const port = Number(/^m=audio (\d+)/m.exec(ok)?.[1]);
  const address = /^c=IN IP4 (\S+)/m.exec(ok)?.[1] ?? '127.0.0.1';
  return { remote: { address, port }, close: () => sock.close() };
}
