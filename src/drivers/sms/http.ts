/**
 * The generic HTTP driver for web SMS providers (Clickatell-style): one request per message made
 * from templates with {to} {from} {text} {id} (and the write-only {username} {password} {token}
 * settings, so credentials need not sit in a visible URL). The send succeeded when the response
 * body matches `success_regex`; the gateway's message id is `message_id_regex`'s first group, or
 * ours.
 */
import type { SmsDriver, SmsSubmit, SubmitResult } from './driver.ts';
import { checks, checkSettings, type SettingsResult } from './settings.ts';
import { fillTemplate } from './templates.ts';

export interface HttpSmsSettings {
  url_template: string;
  method: 'GET' | 'POST';
  /** POST body; a body starting with { or [ is sent as JSON (values JSON-escaped), else as a form. */
  body_template: string;
  success_regex: string;
  message_id_regex?: string;
  username?: string;
  password?: string;
  token?: string;
  timeout_ms: number;
}

const SPECS = {
  url_template: {
    check: (v: unknown) => {
      if (typeof v !== 'string' || !/^https?:\/\//.test(v)) return 'must be an http:// or https:// URL (with {to}, {from}, {text}, {id} placeholders).';
      return checks.httpUrl(fillTemplate(v, { to: '1', from: '1', text: 'x', id: '1', username: 'u', password: 'p', token: 't' }, (x) => x));
    },
    required: true,
  },
  method: { check: checks.oneOf('GET', 'POST'), default: 'GET' },
  body_template: { check: checks.anyText, default: '' },
  success_regex: { check: checks.regex, required: true },
  message_id_regex: { check: checks.regex },
  username: { check: checks.anyText },
  password: { check: checks.anyText },
  token: { check: checks.anyText },
  timeout_ms: { check: checks.integer(100, 120_000), default: 10_000 },
};

export function httpSmsSettings(raw: unknown): SettingsResult<HttpSmsSettings> {
  const result = checkSettings<HttpSmsSettings>('http', SPECS, raw);
  if (result.ok && result.value.method === 'GET' && result.value.body_template) {
    return { ok: false, errors: ['body_template: is sent only with method POST.'] };
  }
  return result;
}

/** A JSON string's content without its quotes. */
const jsonEscape = (value: string) => JSON.stringify(value).slice(1, -1);

export class HttpSmsDriver implements SmsDriver {
  readonly name = 'http';
  private readonly settings: HttpSmsSettings;

  constructor(settings: unknown) {
    const checked = httpSmsSettings(settings);
    if (!checked.ok) throw new Error(`invalid http settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
  }

  /** The request of a message: its URL, and for POST its body and content type. */
  request(message: SmsSubmit): { url: string; init: RequestInit } {
    const s = this.settings;
    const values = { to: message.to, from: message.from, text: message.text, id: String(message.messageId), username: s.username ?? '', password: s.password ?? '', token: s.token ?? '' };
    const url = fillTemplate(s.url_template, values, encodeURIComponent);
    if (s.method === 'GET') return { url, init: { method: 'GET' } };
    const json = /^\s*[[{]/.test(s.body_template);
    const body = fillTemplate(s.body_template, values, json ? jsonEscape : encodeURIComponent);
    return { url, init: { method: 'POST', body, headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' } } };
  }

  async send(message: SmsSubmit): Promise<SubmitResult> {
    const { url, init } = this.request(message);
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(this.settings.timeout_ms) });
      body = await response.text();
    } catch (err) {
      const cause = (err as Error).name === 'TimeoutError' ? `no answer within ${this.settings.timeout_ms} ms` : (err as Error).message;
      return { ok: false, error: `http: ${cause}`, retry: true };
    }
    if (!new RegExp(this.settings.success_regex).test(body)) {
      return { ok: false, error: `http: HTTP ${response.status} ${body.trim()}`.slice(0, 200), retry: response.status >= 500 || response.status === 429 };
    }
    const id = this.settings.message_id_regex ? new RegExp(this.settings.message_id_regex).exec(body)?.[1] : undefined;
    return { ok: true, gatewayMessageId: id ?? String(message.messageId) };
  }

  async close(): Promise<void> {}
}
