/**
 * Kannel through its HTTP sendsms interface (smsbox's sendsms-port). Each message is one GET
 * with the credentials, the text (UTF-8; UCS-2 texts with coding=2 so Kannel sends them as
 * UCS-2), the dlr-mask and a dlr-url back to this gateway's report route, carrying our message
 * id and Kannel's %d (the report type). Kannel answers 202 "0: Accepted for delivery" or
 * "3: Queued for later delivery"; its HTTP API returns no message id, so ours is the id.
 */
import type { SmsDriver, SmsGatewayInfo, SmsSubmit, SubmitResult } from './driver.ts';
import { encodingOf } from './encoding.ts';
import { checks, checkSettings, type SettingsResult } from './settings.ts';

export interface KannelSettings {
  /** e.g. http://127.0.0.1:13013/cgi-bin/sendsms */
  sendsms_url: string;
  username: string;
  password: string;
  /** Routes the message to one of Kannel's SMSCs (its smsc-id). */
  smsc_id?: string;
  /** Report types wanted: 1 delivered, 2 failed, 4 queued on SMSC, 8 delivered to SMSC, 16 rejected. */
  dlr_mask: number;
  /** How Kannel reaches this API, e.g. http://127.0.0.1:8000 */
  callback_base_url: string;
  /** Milliseconds before a sendsms request is abandoned (the message may then be resent). */
  timeout_ms: number;
}

const SPECS = {
  sendsms_url: { check: checks.httpUrl, required: true },
  username: { check: checks.text, required: true },
  password: { check: checks.text, required: true },
  smsc_id: { check: checks.anyText },
  dlr_mask: { check: checks.integer(0, 31), default: 31 },
  callback_base_url: { check: checks.httpUrl, required: true },
  timeout_ms: { check: checks.integer(100, 120_000), default: 10_000 },
};

export function kannelSettings(raw: unknown): SettingsResult<KannelSettings> {
  return checkSettings<KannelSettings>('kannel', SPECS, raw);
}

/** A Kannel report type (the dlr-url's %d) as a delivery status; undefined for unknown types. */
export function kannelReportStatus(type: number): 'sent' | 'delivered' | 'failed' | undefined {
  if (type & 1) return 'delivered';
  if (type & 2 || type & 16) return 'failed';
  if (type & 8 || type & 4) return 'sent';
  return undefined;
}

/** The report and inbound callback URLs of a gateway, under `base` (no trailing slash needed). */
export function callbackUrls(base: string, gateway: Pick<SmsGatewayInfo, 'id' | 'callback_secret'>): { report: string; inbound: string } {
  const root = `${base.replace(/\/+$/, '')}/rest-api/sms-gateway/${gateway.id}`;
  return { report: `${root}/report/${gateway.callback_secret}/`, inbound: `${root}/inbound/${gateway.callback_secret}/` };
}

export class KannelDriver implements SmsDriver {
  readonly name = 'kannel';
  private readonly settings: KannelSettings;

  constructor(private readonly gateway: SmsGatewayInfo) {
    const checked = kannelSettings(gateway.settings);
    if (!checked.ok) throw new Error(`invalid kannel settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
  }

  /** The sendsms URL of a message. */
  requestUrl(message: SmsSubmit): string {
    const s = this.settings;
    const url = new URL(s.sendsms_url);
    const params = url.searchParams;
    params.set('username', s.username);
    params.set('password', s.password);
    if (message.from) params.set('from', message.from);
    params.set('to', message.to);
    params.set('text', message.text);
    params.set('charset', 'UTF-8');
    if (encodingOf(message.text) === 'ucs2') params.set('coding', '2');
    if (s.smsc_id) params.set('smsc', s.smsc_id);
    if (s.dlr_mask > 0) {
      params.set('dlr-mask', String(s.dlr_mask));
      // Kannel replaces %d with the report type when it fetches this URL.
      params.set('dlr-url', `${callbackUrls(s.callback_base_url, this.gateway).report}?id=${message.messageId}&type=%d`);
    }
    return url.toString();
  }

  async send(message: SmsSubmit): Promise<SubmitResult> {
    let response: Response;
    let body: string;
    try {
      response = await fetch(this.requestUrl(message), { signal: AbortSignal.timeout(this.settings.timeout_ms) });
      body = (await response.text()).trim();
    } catch (err) {
      const cause = (err as Error).name === 'TimeoutError' ? `no answer within ${this.settings.timeout_ms} ms` : (err as Error).message;
      return { ok: false, error: `kannel: ${cause}`, retry: true };
    }
    if (response.ok && /^[03]:/.test(body)) return { ok: true, gatewayMessageId: String(message.messageId) };
    const error = `kannel: HTTP ${response.status} ${body}`.slice(0, 200);
    // Kannel answers 503 while it cannot queue (e.g. bearerbox down); 4xx are the request's fault.
    return { ok: false, error, retry: response.status >= 500 };
  }

  async close(): Promise<void> {}
}
