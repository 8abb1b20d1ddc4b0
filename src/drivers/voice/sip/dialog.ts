/**
 * An established dialog (RFC 3261 §12) from our INVITE and its 2xx: tags, remote target, route
 * set and our CSeq; it sends the ACK and the requests inside the call (BYE, REFER, INFO).
 */
import type { NameAddr, SipMessage } from 'sip';
import sip from 'sip';
import type { SipStack } from './stack.ts';

export class Dialog {
  readonly callId: string;
  private readonly from: NameAddr;
  private readonly to: NameAddr;
  private readonly remoteTarget: string;
  private readonly routeSet: NameAddr[];
  private readonly inviteSeq: number;
  private seq: number;

  constructor(
    private readonly stack: SipStack,
    invite: SipMessage,
    ok: SipMessage,
  ) {
    this.callId = invite.headers['call-id'] as string;
    this.from = invite.headers.from as NameAddr;
    this.to = ok.headers.to as NameAddr;
    this.remoteTarget = ok.headers.contact?.[0]?.uri ?? (invite.uri as string);
    // The 2xx's Record-Route, reversed, is our route set (RFC 3261 §12.1.2).
    this.routeSet = [...(ok.headers['record-route'] ?? [])].reverse();
    this.inviteSeq = invite.headers.cseq?.seq ?? 1;
    this.seq = this.inviteSeq;
  }

  /** The next hop: the first route (loose routing), else the remote target. */
  private async nextHop() {
    const uri = sip.parseUri(this.routeSet[0]?.uri ?? this.remoteTarget);
    if (!uri) throw new Error(`cannot route to ${this.remoteTarget}`);
    return this.stack.remote(uri.host, uri.port || 5060);
  }

  private message(method: string, seq: number, headers: Record<string, unknown> = {}, content?: string): SipMessage {
    return {
      method,
      uri: this.remoteTarget,
      headers: {
        to: this.to,
        from: this.from,
        'call-id': this.callId,
        cseq: { seq, method },
        ...(this.routeSet.length ? { route: this.routeSet } : {}),
        contact: [{ uri: this.stack.contactUri(), params: {} }],
        ...headers,
      },
      ...(content ? { content } : {}),
    };
  }

  /** ACK of the 2xx (sent again for each retransmitted 2xx). */
  async ack(): Promise<void> {
    this.stack.sendDirect(await this.nextHop(), this.message('ACK', this.inviteSeq));
  }

  /** Sends a request in the dialog; resolves with its final response (a 408 when none came). */
  async request(method: string, headers?: Record<string, unknown>, content?: string): Promise<SipMessage> {
    const rq = this.message(method, ++this.seq, headers, content);
    const target = await this.nextHop();
    return new Promise((resolve) => {
      this.stack.request(
        target,
        rq,
        (rs) => {
          if ((rs.status ?? 0) >= 200) resolve(rs);
        },
        () => resolve(sip.makeResponse(rq, 503, 'Transport Error')),
      );
    });
  }
}
