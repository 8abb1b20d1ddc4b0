/**
 * The `sip` telephony driver (contract §7): SIP and RTP spoken by the engine itself to a SIP
 * trunk or proxy. Signalling through the `sip` package (stack.ts), media through the media
 * module (media/index.ts). One SIP socket and one media engine per gateway, made on first call.
 */
import type { NameAddr } from 'sip';
import type { Call, DriverContext, OriginateRequest, TelephonyDriver } from '../driver.ts';
import { SipCall } from './call.ts';
import type { InviteDeps } from './invite.ts';
import { AMD_DEFAULTS, type AmdParams, createMediaEngine, type MediaSession } from './media/index.ts';
import { ProxyPauses, SetupPacer } from './pacer.ts';
import { Registration } from './register.ts';
import { proxyList, rtpPortRange, type SipSettings, sipSettings, splitHostPort } from './settings.ts';
import { SipStack } from './stack.ts';


const quoted = (name: string) => (name ? `"${name.replace(/["\\]/g, '')}"` : '');

export class SipDriver implements TelephonyDriver {
  readonly name = 'sip';
  readonly settings: SipSettings;
  /** mod_amd's defaults (media/amd.ts, documented in the README), handed to the detector. */
  readonly amdParams: AmdParams = AMD_DEFAULTS;
  private readonly calls = new Set<SipCall>();
  private readonly pacer: SetupPacer;
  private readonly authPacer: SetupPacer;
  private readonly pauses = new ProxyPauses();
  /** The proxies tried in turn; set from the first call's gateway row (`gateways` field). */
  private proxies: string[];
  private stackPromise?: Promise<SipStack>;
  private mediaEngine?: ReturnType<typeof createMediaEngine>;
  private registration?: Registration;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    raw: unknown,
    private readonly ctx: DriverContext,
    gateways = '',
  ) {
    const checked = sipSettings(raw);
    if (!checked.ok) throw new Error(`sip driver settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
    this.pacer = new SetupPacer(this.settings.cps);
    this.authPacer = new SetupPacer(this.settings.cps);
    this.proxies = proxyList(this.settings, gateways);
  }

  get dataDir(): string {
    return this.ctx.dataDir;
  }

  now(): Date {
    return this.ctx.clock.now();
  }

  log(message: string): void {
    if (process.env.SIP_DEBUG) console.error(`[sip] ${message}`);
  }

  /** The SIP socket, bound on first use (and REGISTER started when asked). */
  stack(): Promise<SipStack> {
    this.stackPromise ??= SipStack.open({
      transport: this.settings.transport,
      bindAddress: this.settings.bind_address,
      bindPort: this.settings.bind_port,
      advertised: this.settings.rtp_address,
      onError: (err) => this.log(err.message),
    }).then((stack) => {
      if (this.settings.register) {
        this.registration = new Registration(stack, this.settings, this.credentials());
        this.registration.start();
      }
      return stack;
    });
    return this.stackPromise;
  }

  async openMedia(): Promise<MediaSession> {
    const stack = await this.stack();
    this.mediaEngine ??= createMediaEngine({
      bindAddress: this.settings.bind_address,
      rtpAddress: stack.address,
      portRange: rtpPortRange(this.settings.rtp_ports),
    });
    return this.mediaEngine.open();
  }

  /** What an INVITE needs; a call waits for a paused proxy at most its ring time. */
  inviteDeps(stack: SipStack, maxPauseWaitMs: number, onSent: () => void, mayDial?: () => boolean | Promise<boolean>): InviteDeps {
    return {
      mayDial: mayDial ?? (() => true),
      stack,
      pacer: this.pacer,
      authPacer: this.authPacer,
      pauses: this.pauses,
      proxies: this.proxies,
      failoverMs: this.settings.failover_seconds * 1000,
      maxPauseWaitMs,
      onProvisional: () => undefined,
      onSent,
    };
  }

  fromDomain(): string {
    return this.settings.from_domain || splitHostPort(this.settings.proxy).host;
  }

  requestUri(number: string): string {
    return `sip:${number}@${this.settings.proxy.replace(/^sips?:/, '')}`;
  }

  fromHeader(callerId: string, callerName: string): NameAddr {
    return { name: quoted(callerName), uri: `sip:${callerId || 'anonymous'}@${this.fromDomain()}`, params: { tag: Math.random().toString(36).slice(2, 12) } };
  }

  identity(callerId: string, callerName: string): string {
    return `${quoted(callerName)} <sip:${callerId || 'anonymous'}@${this.fromDomain()}>`.trim();
  }

  credentials(): { user: string; password: string; realm?: string } | null {
    if (!this.settings.username) return null;
    return { user: this.settings.username, password: this.settings.password, ...(this.settings.realm ? { realm: this.settings.realm } : {}) };
  }

  /** When every proxy is paused by 503 Retry-After, until when (the engine claims no calls for it until then). */
  pausedUntil(): Date | null {
    return this.pauses.allPausedUntil(this.proxies);
  }

  originate(request: OriginateRequest): Call {
    return this.originateLeg(request);
  }

  /** A call (or a transfer's B-leg, which may target a whole SIP URI). */
  originateLeg(request: OriginateRequest & { uri?: string }): SipCall {
    if (this.closed) throw new Error('sip driver closed');
    if (request.gateway?.gateways !== undefined) this.proxies = proxyList(this.settings, request.gateway.gateways);
    const call = new SipCall(this, request);
    this.calls.add(call);
    return call;
  }

  /** A request still on its way (a BYE): close() waits a little for it. */
  pending(request: Promise<void>): Promise<void> {
    this.inFlight.add(request);
    void request.finally(() => this.inFlight.delete(request));
    return request;
  }

  forget(call: SipCall): void {
    this.calls.delete(call);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.calls].map((c) => c.hangup().catch(() => undefined)));
    // The BYEs just sent get their answer (or 2 s) before the socket goes.
    await Promise.race([Promise.all([...this.inFlight]), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    if (this.stackPromise) {
      const stack = await this.stackPromise.catch(() => undefined);
      await this.registration?.stop();
      stack?.close();
    }
    await this.mediaEngine?.close();
  }
}
