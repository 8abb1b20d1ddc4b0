/**
 * The sip driver's settings (a gateway's `settings` when its driver is `sip`), with defaults,
 * checked when the gateway is written and again when the driver is built. `password` is
 * write-only like every driver secret (gateway.secrets.ts masks any key holding "password").
 */
import { type Check, checks, checkSettings, type SettingsResult } from '../../sms/settings.ts';

export const Codec = { PCMU: 0, PCMA: 8 } as const;
export type CodecName = keyof typeof Codec;

export const TransferMode = { Refer: 'refer', Bridge: 'bridge' } as const;

export interface SipSettings {
  /** host[:port] of the trunk or outbound proxy; the Request-URI is sip:<number>@<proxy>. */
  proxy: string;
  transport: 'udp' | 'tcp';
  /** Digest credentials (RFC 2617/8760 MD5), used when the trunk challenges (401/407). */
  username: string;
  password: string;
  /** Only answer challenges of this realm ('' = any). */
  realm: string;
  /** Host part of From and P-Asserted-Identity ('' = the proxy's host). */
  from_domain: string;
  /** REGISTER to the proxy, and again before the registration expires. */
  register: boolean;
  register_expires: number;
  /** Where our SIP socket listens; port 0 = any free port. */
  bind_address: string;
  bind_port: number;
  /** The address the carrier reaches us at (Via, Contact, SDP c=); '' = bind_address, or this host's first address. */
  rtp_address: string;
  /** RTP ports, "low-high". */
  rtp_ports: string;
  /** Offered in this order. */
  codecs: CodecName[];
  /** Call setups (new INVITEs) per second the carrier accepts; the driver never exceeds it. 0 = no limit. */
  cps: number;
  transfer_mode: 'refer' | 'bridge';
  /** Without any answer (not even 100 Trying) from a proxy in this long, the next one of `gateways` is tried. */
  failover_seconds: number;
  /** Where conference (8) and queue (12) sections send the call: `{name}` = the section's room or queue. */
  conference_uri: string;
  queue_uri: string;
}

const codecList: Check = (v) => {
  const list = typeof v === 'string' ? v.split(',').map((c) => c.trim()) : v;
  const ok = Array.isArray(list) && list.length > 0 && list.every((c) => typeof c === 'string' && Object.hasOwn(Codec, c.toUpperCase()));
  return ok ? null : 'must list PCMU and/or PCMA, e.g. ["PCMU", "PCMA"].';
};

const portRange: Check = (v) => {
  const m = typeof v === 'string' ? /^(\d+)-(\d+)$/.exec(v.trim()) : null;
  const ok = m && Number(m[1]) >= 1024 && Number(m[1]) < Number(m[2]) && Number(m[2]) <= 65535;
  return ok ? null : 'must be a range "low-high" of ports from 1024 to 65535.';
};

const hostPort: Check = (v) =>
  typeof v === 'string' && /^[A-Za-z0-9.\-[\]:]+$/.test(v.replace(/^sip:/, '')) ? null : 'must be host or host:port (e.g. "sip.carrier.example:5060").';

const boolean: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false.');
const uriTemplate: Check = (v) => (typeof v === 'string' && (v === '' || v.startsWith('sip:')) ? null : 'must be a sip: URI (may hold {name}) or "".');

const SPECS = {
  proxy: { check: hostPort, required: true },
  transport: { check: checks.oneOf('udp', 'tcp'), default: 'udp' },
  username: { check: checks.anyText, default: '' },
  password: { check: checks.anyText, default: '' },
  realm: { check: checks.anyText, default: '' },
  from_domain: { check: checks.anyText, default: '' },
  register: { check: boolean, default: false },
  register_expires: { check: checks.integer(60, 86_400), default: 3600 },
  bind_address: { check: checks.text, default: '0.0.0.0' },
  bind_port: { check: checks.integer(0, 65535), default: 5060 },
  rtp_address: { check: checks.anyText, default: '' },
  rtp_ports: { check: portRange, default: '16384-32767' },
  codecs: { check: codecList, default: ['PCMU', 'PCMA'] },
  cps: { check: (v: unknown) => (typeof v === 'number' && v >= 0 && v <= 10_000 ? null : 'must be a number from 0 to 10000.'), default: 10 },
  transfer_mode: { check: checks.oneOf(TransferMode.Refer, TransferMode.Bridge), default: TransferMode.Refer },
  failover_seconds: { check: checks.integer(1, 60), default: 4 },
  conference_uri: { check: uriTemplate, default: '' },
  queue_uri: { check: uriTemplate, default: '' },
};

/** Checks raw settings and fills in the defaults (codecs upper-cased into a list). */
export function sipSettings(raw: unknown): SettingsResult<SipSettings> {
  const checked = checkSettings<SipSettings>('sip', SPECS, raw);
  if (!checked.ok) return checked;
  const codecs = checked.value.codecs as unknown;
  const list = (typeof codecs === 'string' ? codecs.split(',') : (codecs as string[])).map((c) => c.trim().toUpperCase() as CodecName);
  return { ok: true, value: { ...checked.value, codecs: list } };
}

/** "low-high" as a pair. */
export function rtpPortRange(range: string): [number, number] {
  const [low, high] = range.split('-').map(Number);
  return [low, high];
}

/** host and port of "host[:port]" (a bare IPv6 address in brackets), port 5060 by default. */
export function splitHostPort(value: string): { host: string; port: number } {
  const v = value.trim().replace(/^sips?:/, '').replace(/\/+$/, '');
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(v) ?? /^([^:]+)(?::(\d+))?$/.exec(v);
  return m ? { host: m[1], port: m[2] ? Number(m[2]) : 5060 } : { host: v, port: 5060 };
}

/** The proxies to try in turn: `proxy`, then the gateway's `gateways` field (comma or space separated). */
export function proxyList(settings: Pick<SipSettings, 'proxy'>, gateways: string): string[] {
  // Anything that is not host[:port] (a FreeSWITCH dial-string prefix left from another driver) is ignored.
  const more = gateways.split(/[\s,]+/).map((g) => g.trim().replace(/^sips?:/, '')).filter((g) => /^[A-Za-z0-9.\-[\]:]+$/.test(g));
  return [settings.proxy.replace(/^sips?:/, ''), ...more.filter((g) => g !== settings.proxy)];
}
