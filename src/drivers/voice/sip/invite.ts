/**
 * One outgoing INVITE across the gateway's proxies (failover): each proxy in turn until one
 * gives a final answer other than 503, or none answers at all (no response in
 * `failover_seconds`, a transport error). Digest auth on 401/407 (RFC 2617/8760 MD5, through the
 * `sip` package's helper); a 503 with Retry-After pauses that proxy; CANCEL once a provisional
 * response came (RFC 3261 §9.1).
 */
import type { ClientTransaction, NameAddr, Remote, SipMessage } from 'sip';
import digest from 'sip/digest.js';
import { Q850 } from '../driver.ts';
import { retryAfterSeconds } from './causes.ts';
import { Dialog } from './dialog.ts';
import type { ProxyPauses, SetupPacer } from './pacer.ts';
import { splitHostPort } from './settings.ts';
import type { SipStack } from './stack.ts';

export interface InviteSpec {
  callId: string;
  /** The user part of the Request-URI (the number)… */
  user: string;
  /** …or a whole URI (a transfer to a SIP URI), still sent through the proxy. */
  requestUri?: string;
  from: NameAddr;
  sdp: string;
  headers: Record<string, string>;
  credentials: { user: string; password: string; realm?: string } | null;
}

export type InviteResult =
  | { answered: true; dialog: Dialog; sdp: string }
  /** `status` 0 = nothing answered at all (every proxy silent or unreachable). */
  | { answered: false; status: number; cause?: number; reason: string };

export interface InviteDeps {
  stack: SipStack;
  /** Spaces first INVITEs to the `cps` setting. */
  pacer: SetupPacer;
  /**
   * Spaces INVITEs re-sent with credentials the same way, apart from first ones: a proxy that
   * challenges counts its call setups on the authenticated INVITE, sent one round trip after
   * the first, and the delays of that round trip could bunch them up beyond `cps`.
   */
  authPacer: SetupPacer;
  pauses: ProxyPauses;
  proxies: string[];
  failoverMs: number;
  /** The longest we wait for a paused proxy before giving up with congestion (34). */
  maxPauseWaitMs: number;
  onProvisional: (status: number) => void;
  /** The first INVITE goes out (after the CPS queue): the ring time starts. */
  onSent: () => void;
  /** Asked after the CPS queue, before each INVITE goes out: false, and it is not sent (OriginateRequest.mayDial). */
  mayDial: () => boolean | Promise<boolean>;
}

export class OutgoingInvite {
  readonly done: Promise<InviteResult>;
  private settle!: (r: InviteResult) => void;
  private settled = false;
  private cancelled = false;
  private provisional = false;
  private current?: { tx: ClientTransaction; rq: SipMessage; target: Remote; resolve: (r: 'done' | 'next') => void };
  private seq = 1;
  private sent = false;
  /** Why the last proxy tried did not take the call. */
  private last: InviteResult = { answered: false, status: 0, reason: 'no proxy answered' };

  constructor(
    private readonly deps: InviteDeps,
    private readonly spec: InviteSpec,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    void this.run().catch((err: Error) => this.finish({ answered: false, status: 0, reason: err.message }));
  }

  private finish(r: InviteResult): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(r);
  }

  /**
   * Gives up: CANCEL when the far end has answered provisionally (its 487 settles the INVITE);
   * before that, nothing can be cancelled (§9.1), so the transaction is dropped at once.
   */
  cancel(): void {
    if (this.cancelled || this.settled) return;
    this.cancelled = true;
    if (!this.current) return this.finish({ answered: false, status: 487, reason: 'cancelled before sending' });
    if (this.provisional) return this.sendCancel();
    this.current.tx.shutdown();
    this.finish({ answered: false, status: 408, reason: 'no response before the timeout' });
    this.current.resolve('done');
  }

  private sendCancel(): void {
    const { rq, target } = this.current as { rq: SipMessage; target: Remote };
    const via = rq.headers.via?.[0];
    const cancel: SipMessage = {
      method: 'CANCEL',
      uri: rq.uri,
      headers: {
        via: via ? [{ ...via, params: { ...via.params } }] : [],
        to: rq.headers.to,
        from: rq.headers.from,
        'call-id': rq.headers['call-id'],
        cseq: { seq: rq.headers.cseq?.seq ?? 1, method: 'CANCEL' },
        ...(rq.headers.route ? { route: rq.headers.route } : {}),
      },
    };
    this.deps.stack.request(target, cancel, () => undefined, () => undefined);
    // The 487 should follow; if it never does, the INVITE is over anyway after 64*T1.
    setTimeout(() => this.finish({ answered: false, status: 487, reason: 'cancelled (no 487 came)' }), 32_000).unref();
  }

  private async run(): Promise<void> {
    let tried = false;
    for (const proxy of this.deps.proxies) {
      if (this.deps.pauses.remaining(proxy) > 0) continue;
      tried = true;
      if ((await this.attempt(proxy)) === 'done') return;
    }
    // Every proxy paused before this call could be sent (claimed before the 503 was known):
    // it waits for the first one back when that comes within its ring time, else congestion.
    const until = tried ? null : this.deps.pauses.allPausedUntil(this.deps.proxies);
    if (until && !this.cancelled && until.getTime() - Date.now() <= this.deps.maxPauseWaitMs) {
      await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now()));
      if (!this.cancelled) return this.run();
    }
    if (until) this.last = { answered: false, status: 503, reason: 'every proxy paused (503 Retry-After)' };
    this.finish(this.cancelled ? { answered: false, status: 487, reason: 'cancelled' } : this.last);
  }

  /** One proxy: resolves 'done' when the INVITE is settled, 'next' to try the next proxy. */
  private async attempt(proxy: string): Promise<'done' | 'next'> {
    await this.deps.pacer.acquire();
    const may = this.deps.mayDial();
    if (may !== true) {
      if (!(await may)) {
        this.finish({ answered: false, status: 0, cause: Q850.OriginatorCancel, reason: 'not sent: the call was closed while it waited' });
        return 'done';
      }
      // The answer took a while: a turn of its own, so the INVITEs stay `cps` apart.
      await this.deps.pacer.acquire();
    }
    if (this.cancelled) {
      this.finish({ answered: false, status: 487, reason: 'cancelled before sending' });
      return 'done';
    }
    this.provisional = false;
    if (!this.sent) this.deps.onSent();
    this.sent = true;
    const { host, port } = splitHostPort(proxy);
    const target = await this.deps.stack.remote(host, port);
    const uri = this.spec.requestUri ?? `sip:${this.spec.user}@${host}${port === 5060 ? '' : `:${port}`}`;
    const rq: SipMessage = {
      method: 'INVITE',
      uri,
      headers: {
        to: { uri, params: {} },
        from: this.spec.from,
        'call-id': this.spec.callId,
        cseq: { seq: this.seq++, method: 'INVITE' },
        contact: [{ uri: this.deps.stack.contactUri(), params: {} }],
        'content-type': 'application/sdp',
        allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, NOTIFY, REFER',
        ...this.spec.headers,
      },
      content: this.spec.sdp,
    };
    return new Promise((resolve) => this.send(proxy, target, rq, null, resolve));
  }

  private send(proxy: string, target: Remote, rq: SipMessage, auth: object | null, resolve: (r: 'done' | 'next') => void): void {
    let heard = false;
    const next = (why: InviteResult) => {
      this.last = why;
      resolve('next');
    };
    let answeredDialog: Dialog | null = null;
    const more = this.deps.proxies.indexOf(proxy) < this.deps.proxies.length - 1;
    const silence = more
      ? setTimeout(() => {
          tx.shutdown();
          next({ answered: false, status: 0, cause: Q850.NormalTemporaryFailure, reason: `${proxy}: no response` });
        }, this.deps.failoverMs)
      : undefined;
    const onResponse = (rs: SipMessage) => {
      const status = rs.status ?? 0;
      // A 408 made by the transaction itself (timer B: no reason phrase, no To tag) is silence, not an answer.
      const timerB = status === 408 && !heard && !rs.reason && !rs.headers.to?.params?.tag;
      heard = true;
      clearTimeout(silence);
      if (status < 200) {
        if (status > 100) {
          this.provisional = true;
          this.deps.onProvisional(status);
          if (this.cancelled) this.sendCancel();
        }
        return;
      }
      if (status < 300) {
        // Retransmitted 2xx: ACK again; the first one makes the dialog.
        answeredDialog ??= new Dialog(this.deps.stack, rq, rs);
        void answeredDialog.ack().catch(() => undefined);
        this.finish({ answered: true, dialog: answeredDialog, sdp: rs.content ?? '' });
        return resolve('done');
      }
      if ((status === 401 || status === 407) && this.spec.credentials && !auth) {
        const retry: SipMessage = { ...rq, headers: { ...rq.headers, cseq: { seq: this.seq++, method: 'INVITE' } } };
        const ctx = digest.signRequest(null, retry, rs, this.spec.credentials) ?? {};
        void this.deps.authPacer.acquire().then(() => {
          if (!this.cancelled) return this.send(proxy, target, retry, ctx, resolve);
          this.finish({ answered: false, status: 487, reason: 'cancelled before sending' });
          resolve('done');
        });
        return;
      }
      if (status === 503) {
        const seconds = retryAfterSeconds(rs.headers['retry-after']);
        if (seconds > 0) this.deps.pauses.pause(proxy, seconds);
        if (!this.cancelled) return next({ answered: false, status, reason: rs.reason ?? '' });
      }
      if (timerB && !this.cancelled) return next({ answered: false, status: 0, cause: Q850.NormalTemporaryFailure, reason: `${proxy}: no response` });
      this.finish({ answered: false, status, reason: rs.reason ?? '' });
      resolve('done');
    };
    const tx = this.deps.stack.request(target, rq, onResponse, (err) => {
      clearTimeout(silence);
      tx.shutdown();
      next({ answered: false, status: 0, cause: Q850.NormalTemporaryFailure, reason: `${proxy}: ${err.message}` });
    });
    this.current = { tx, rq, target, resolve };
  }
}
