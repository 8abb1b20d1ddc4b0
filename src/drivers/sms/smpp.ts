/**
 * SMPP 3.4 as a transceiver (bind_transceiver): submit_sm with data_coding 0 (GSM default
 * alphabet) or 8 (UCS-2), a long text split into parts carrying a concatenation UDH (esm_class
 * 0x40, 8-bit reference), each part its own submit_sm. The gateway message id of a message is
 * its first part's; the other parts' ids are remembered so a receipt for any part maps back.
 * deliver_sm is always answered: a delivery receipt (esm_class 0x04, `id:… stat:…`) becomes a
 * report, anything else an inbound message. enquire_link keeps the session alive, and a peer
 * that does not answer one within response_timeout_ms (hung, though its TCP connection stays
 * open) is dropped like a closed connection; a dropped connection is re-bound with backoff (a
 * submit_sm in flight then is not retried: the SMSC may have taken it); a throttled reply
 * (0x58) pauses sending briefly. Network
 * timing uses real timers (sockets do not follow a test clock); reports carry ctx.clock's time.
 */
import smpp, { type Pdu, type Session } from 'smpp';
import type { SmsDriver, SmsDriverContext, SmsGatewayInfo, SmsSubmit, SubmitResult } from './driver.ts';
import { splitSms } from './encoding.ts';
import { checks, checkSettings, type SettingsResult } from './settings.ts';

export interface SmppSettings {
  host: string;
  port: number;
  system_id: string;
  password: string;
  system_type: string;
  source_addr_ton: number;
  source_addr_npi: number;
  dest_addr_ton: number;
  dest_addr_npi: number;
  /** submit_sm per second at most (0 = no limit). */
  throughput: number;
  /** Seconds between enquire_link keep-alives. */
  enquire_link_s: number;
  /** Milliseconds to wait for a response PDU; a missing enquire_link_resp drops the session. */
  response_timeout_ms: number;
  /** First reconnect delay (doubled each failure up to 30 s). */
  reconnect_ms: number;
  /** Pause of sending after a throttled (0x58) reply. */
  throttle_pause_ms: number;
}

const ton = checks.integer(0, 6);
const npi = checks.integer(0, 18);
const SPECS = {
  host: { check: checks.text, required: true },
  port: { check: checks.integer(1, 65535), required: true },
  system_id: { check: checks.text, required: true },
  password: { check: checks.anyText, required: true },
  system_type: { check: checks.anyText, default: '' },
  source_addr_ton: { check: ton, default: 1 },
  source_addr_npi: { check: npi, default: 1 },
  dest_addr_ton: { check: ton, default: 1 },
  dest_addr_npi: { check: npi, default: 1 },
  throughput: { check: checks.integer(0, 10_000), default: 0 },
  enquire_link_s: { check: checks.integer(1, 3600), default: 30 },
  response_timeout_ms: { check: checks.integer(100, 120_000), default: 10_000 },
  reconnect_ms: { check: checks.integer(10, 60_000), default: 1000 },
  throttle_pause_ms: { check: checks.integer(0, 60_000), default: 1000 },
};

export function smppSettings(raw: unknown): SettingsResult<SmppSettings> {
  return checkSettings<SmppSettings>('smpp', SPECS, raw);
}

export const SmppStatus = { Ok: 0x00, MessageQueueFull: 0x14, Throttled: 0x58 } as const;

const MAX_RECONNECT_MS = 30_000;
/** Ids of later parts kept for mapping their receipts; the oldest go first. */
const MAX_PART_IDS = 100_000;

/** A receipt's `stat:` as a delivery status. */
function receiptStatus(stat: string): 'sent' | 'delivered' | 'failed' {
  if (stat === 'DELIVRD') return 'delivered';
  if (stat === 'ACCEPTD' || stat === 'ENROUTE') return 'sent';
  return 'failed'; // UNDELIV, REJECTD, EXPIRED, DELETED, UNKNOWN
}

/** The text of a PDU's short_message (the smpp package decodes it as {message, udh}). */
function messageText(pdu: Pdu): string {
  const raw = pdu.short_message as { message?: unknown } | Buffer | string | undefined;
  const payload = pdu.message_payload as { message?: unknown } | undefined;
  const value = raw && typeof raw === 'object' && !Buffer.isBuffer(raw) ? raw.message : raw;
  const text = value === undefined || (typeof value === 'string' && value === '') ? payload?.message : value;
  return Buffer.isBuffer(text) ? text.toString('latin1') : String(text ?? '');
}

export class SmppDriver implements SmsDriver {
  readonly name = 'smpp';
  private readonly settings: SmppSettings;
  private session: Session | undefined;
  private bound = false;
  private closed = false;
  /** Resolves when the session in progress is bound (true) or failed (false). */
  private binding: Promise<boolean> | undefined;
  private lastError = 'not connected yet';
  private reconnectDelay: number;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private pausedUntil = 0;
  private nextSlot = 0;
  private reference = 0;
  /** Responses awaited on the current session, settled with undefined if it drops. */
  private readonly waiting = new Set<(pdu: Pdu | undefined) => void>();
  private readonly partIds = new Map<string, string>();

  constructor(
    private readonly gateway: SmsGatewayInfo,
    private readonly ctx: SmsDriverContext,
  ) {
    const checked = smppSettings(gateway.settings);
    if (!checked.ok) throw new Error(`invalid smpp settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
    this.reconnectDelay = this.settings.reconnect_ms;
    this.connect();
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    if (this.closed) return;
    const s = this.settings;
    const session = smpp.connect({ host: s.host, port: s.port });
    this.session = session;
    let settle: (bound: boolean) => void = () => {};
    this.binding = new Promise((resolve) => (settle = resolve));
    session.on('connect', () => {
      session.send(this.pdu('bind_transceiver', { system_id: s.system_id, password: s.password, system_type: s.system_type, interface_version: 0x34 }), (resp) => {
        if (resp.command_status !== SmppStatus.Ok) {
          this.lastError = `bind refused (command_status 0x${resp.command_status.toString(16)})`;
          settle(false);
          session.destroy();
          return;
        }
        this.bound = true;
        this.reconnectDelay = s.reconnect_ms;
        this.keepAlive = this.keepSessionAlive(session);
        settle(true);
      });
    });
    session.on('deliver_sm', (pdu: Pdu) => this.onDeliver(session, pdu));
    session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: Pdu) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    session.on('close', () => {
      if (this.session !== session) return;
      this.bound = false;
      settle(false);
      clearInterval(this.keepAlive);
      for (const settleOne of this.waiting) settleOne(undefined);
      this.waiting.clear();
      if (this.closed) return;
      if (this.lastError === 'not connected yet') this.lastError = 'connection closed';
      this.reconnectTimer = setTimeout(() => this.connect(), this.reconnectDelay);
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, MAX_RECONNECT_MS);
    });
  }

  /**
   * Sends enquire_link every enquire_link_s (one at a time). No enquire_link_resp within
   * response_timeout_ms means the peer is hung: the session is destroyed, and its 'close' handler
   * settles what was in flight and re-binds, as for any dropped connection.
   */
  private keepSessionAlive(session: Session): NodeJS.Timeout {
    let asking = false;
    return setInterval(() => {
      if (asking) return;
      asking = true;
      void this.request(session, this.pdu('enquire_link', {})).then((resp) => {
        asking = false;
        // No answer, though the session is still ours and bound (a drop also answers undefined).
        if (resp || this.session !== session || !this.bound) return;
        this.lastError = `no enquire_link_resp within ${this.settings.response_timeout_ms} ms`;
        session.destroy();
      });
    }, this.settings.enquire_link_s * 1000);
  }

  /** A request PDU (the package fills the sequence number). */
  private pdu(command: string, fields: Record<string, unknown>): Pdu {
    return new smpp.PDU(command, fields);
  }

  /** Sends `pdu` and waits for its response; undefined when the session drops or times out. */
  private request(session: Session, pdu: Pdu): Promise<Pdu | undefined> {
    return new Promise((resolve) => {
      const settle = (resp: Pdu | undefined) => {
        clearTimeout(timer);
        this.waiting.delete(settle);
        resolve(resp);
      };
      const timer = setTimeout(() => settle(undefined), this.settings.response_timeout_ms);
      this.waiting.add(settle);
      if (!session.send(pdu, settle)) settle(undefined);
    });
  }

  private onDeliver(session: Session, pdu: Pdu): void {
    session.send(pdu.response());
    const at = this.ctx.clock.now();
    const text = messageText(pdu);
    const isReceipt = ((pdu.esm_class as number) & 0x3c) === 0x04;
    if (isReceipt) {
      const id = (pdu.receipted_message_id as string | undefined) ?? /\bid:(\S+)/i.exec(text)?.[1];
      const stat = /\bstat:(\w+)/i.exec(text)?.[1]?.toUpperCase() ?? 'UNKNOWN';
      if (!id) return;
      const gatewayMessageId = this.partIds.get(id) ?? id;
      const status = receiptStatus(stat);
      const err = /\berr:(\w+)/i.exec(text)?.[1];
      void this.ctx.events
        .report(this.gateway.id, { gatewayMessageId, status, at, ...(status === 'failed' ? { error: `${stat}${err ? ` err:${err}` : ''}` } : {}) })
        .catch(() => {});
      return;
    }
    void this.ctx.events
      .inbound(this.gateway.id, { from: String(pdu.source_addr ?? ''), to: String(pdu.destination_addr ?? ''), text, at })
      .catch(() => {});
  }

  /** Waits until the bind in progress ends; true when bound. */
  private async ready(): Promise<boolean> {
    if (this.bound) return true;
    if (this.reconnectTimer || !this.binding) return false; // waiting out a backoff
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.settings.response_timeout_ms)));
    const bound = await Promise.race([this.binding, timeout]);
    clearTimeout(timer);
    return bound;
  }

  /** Spaces submit_sm by the throughput setting. */
  private async pace(): Promise<void> {
    if (this.settings.throughput <= 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / this.settings.throughput;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }

  async send(message: SmsSubmit): Promise<SubmitResult> {
    if (this.closed) return { ok: false, error: 'smpp: driver closed', retry: true };
    if (Date.now() < this.pausedUntil) return { ok: false, error: 'smpp: throttled by the SMSC (0x58)', retry: true };
    if (!(await this.ready()) || !this.session) return { ok: false, error: `smpp: not bound: ${this.lastError}`, retry: true };
    const s = this.settings;
    const { encoding, parts } = splitSms(message.text);
    this.reference = (this.reference + 1) & 0xff;
    const ids: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      await this.pace();
      if (i === 0) {
        const may = message.maySend?.() ?? true;
        if (may !== true) {
          if (!(await may)) return { ok: false, error: 'smpp: not sent: the message was settled while it waited', retry: false };
          await this.pace(); // the answer took a while: a slot of its own, so the throughput holds
        }
      }
      const session = this.session;
      if (!this.bound || !session) return this.cutShort(ids, 'smpp: connection lost', true);
      const udh = parts.length > 1 ? Buffer.from([0x05, 0x00, 0x03, this.reference, parts.length, i + 1]) : undefined;
      const pdu = this.pdu('submit_sm', {
        source_addr: message.from,
        source_addr_ton: s.source_addr_ton,
        source_addr_npi: s.source_addr_npi,
        destination_addr: message.to.replace(/^\+/, ''),
        dest_addr_ton: s.dest_addr_ton,
        dest_addr_npi: s.dest_addr_npi,
        esm_class: udh ? 0x40 : 0x00,
        data_coding: encoding === 'ucs2' ? 0x08 : 0x00,
        registered_delivery: 1,
        short_message: udh ? { udh, message: parts[i] } : { message: parts[i] },
      });
      const resp = await this.request(session, pdu);
      // No answer: the SMSC may have taken the part, so a resend could send it twice.
      if (!resp) return this.cutShort(ids, 'smpp: no submit_sm_resp (connection lost or timed out); outcome unknown', false);
      if (resp.command_status === SmppStatus.Throttled || resp.command_status === SmppStatus.MessageQueueFull) {
        this.pausedUntil = Date.now() + s.throttle_pause_ms;
        return this.cutShort(ids, `smpp: throttled by the SMSC (0x${resp.command_status.toString(16)})`, true);
      }
      if (resp.command_status !== SmppStatus.Ok) {
        return { ok: false, error: `smpp: submit_sm refused (command_status 0x${resp.command_status.toString(16)})`, retry: false };
      }
      ids.push(String(resp.message_id));
    }
    for (const id of ids.slice(1)) this.rememberPart(id, ids[0]);
    return { ok: true, gatewayMessageId: ids[0] };
  }

  /**
   * A send cut short: `retryable` when nothing of the part in hand reached the SMSC. Once a part
   * of a long message was accepted, a resend would repeat it, so then it is not retried.
   */
  private cutShort(accepted: string[], error: string, retryable: boolean): SubmitResult {
    if (accepted.length === 0) return { ok: false, error, retry: retryable };
    return { ok: false, error: `${error}, after ${accepted.length} part(s) were accepted`, retry: false };
  }

  private rememberPart(id: string, first: string): void {
    if (this.partIds.size >= MAX_PART_IDS) this.partIds.delete(this.partIds.keys().next().value as string);
    this.partIds.set(id, first);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.keepAlive);
    const session = this.session;
    if (!session) return;
    if (this.bound) await this.request(session, this.pdu('unbind', {})).catch(() => undefined);
    this.bound = false;
    await new Promise<void>((resolve) => {
      if (session.socket.destroyed) return resolve();
      session.socket.once('close', () => resolve());
      session.destroy();
    });
  }
}
