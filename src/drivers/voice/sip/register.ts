/**
 * REGISTER with the trunk (when `register` is set), with digest auth, and again before the
 * registration expires (at 80 % of what the registrar granted, at least 30 s early); a failed
 * attempt is retried after 30 s. Calls do not wait for it: trunks that need registration
 * authenticate the INVITEs anyway.
 */
import crypto from 'node:crypto';
import type { SipMessage } from 'sip';
import digest from 'sip/digest.js';
import { type SipSettings, splitHostPort } from './settings.ts';
import type { SipStack } from './stack.ts';

export class Registration {
  /** The registrar's last answer (for diagnostics and tests). */
  lastStatus = 0;
  expiresAt: Date | null = null;
  private timer?: NodeJS.Timeout;
  private readonly callId = `${crypto.randomUUID()}@dialer`;
  private readonly tag = crypto.randomBytes(5).toString('hex');
  private seq = 1;
  private stopped = false;

  constructor(
    private readonly stack: SipStack,
    private readonly settings: SipSettings,
    private readonly credentials: { user: string; password: string; realm?: string } | null,
  ) {}

  start(): void {
    void this.send(this.settings.register_expires);
  }

  /** Unregisters (Expires: 0), waiting at most 2 s for the answer. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.lastStatus >= 200 && this.lastStatus < 300) {
      await Promise.race([this.send(0), new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
  }

  private async send(expires: number): Promise<void> {
    const { host, port } = splitHostPort(this.settings.proxy);
    const aor = `sip:${this.settings.username || 'dialer'}@${this.settings.from_domain || host}`;
    const rq: SipMessage = {
      method: 'REGISTER',
      uri: `sip:${host}${port === 5060 ? '' : `:${port}`}`,
      headers: {
        to: { uri: aor, params: {} },
        from: { uri: aor, params: { tag: this.tag } },
        'call-id': this.callId,
        cseq: { seq: this.seq++, method: 'REGISTER' },
        contact: [{ uri: this.stack.contactUri(this.settings.username || 'dialer'), params: {} }],
        expires: String(expires),
      },
    };
    const target = await this.stack.remote(host, port);
    const rs = await this.transact(target, rq);
    if ((rs.status === 401 || rs.status === 407) && this.credentials) {
      const signed: SipMessage = { ...rq, headers: { ...rq.headers, cseq: { seq: this.seq++, method: 'REGISTER' } } };
      digest.signRequest(null, signed, rs, this.credentials);
      this.done(await this.transact(target, signed), expires);
    } else this.done(rs, expires);
  }

  private transact(target: Parameters<SipStack['request']>[0], rq: SipMessage): Promise<SipMessage> {
    return new Promise((resolve) => {
      this.stack.request(target, rq, (rs) => (rs.status ?? 0) >= 200 && resolve(rs), () => resolve({ status: 503, headers: {} }));
    });
  }

  private done(rs: SipMessage, asked: number): void {
    this.lastStatus = rs.status ?? 0;
    if (this.stopped || asked === 0) return;
    const ok = this.lastStatus >= 200 && this.lastStatus < 300;
    const granted = Number(rs.headers.contact?.[0]?.params?.expires ?? rs.headers.expires ?? asked) || asked;
    this.expiresAt = ok ? new Date(Date.now() + granted * 1000) : null;
    const again = ok ? Math.max(5, Math.min(granted * 0.8, granted - 30)) : 30;
    this.timer = setTimeout(() => void this.send(this.settings.register_expires), again * 1000);
    this.timer.unref();
  }
}
