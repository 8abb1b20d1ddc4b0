/**
 * The only reader of process.env. Every setting is typed, validated and frozen here, with its
 * default; a bad value is one clear line and exit 1 (see main.ts / cli.ts).
 */
import path from 'node:path';
import { type CallingHours, type ContactCaps, parseCallingHours, parseContactCaps } from './campaign/contact-policy.ts';
import { countryCode } from './http/phone.ts';

export const LogLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LogLevels)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL URL; undefined means the embedded PGlite database under dataDir. */
  readonly databaseUrl: string | undefined;
  /** How long a database that does not answer at start is retried before giving up (0: once). */
  readonly databaseRetrySeconds: number;
  /** Instance time zone: campaign dates without an offset are read in it (contract §1). */
  readonly timeZone: string;
  readonly logLevel: LogLevel;
  /** Trust X-Forwarded-Proto/Host (and the client address) from a reverse proxy. */
  readonly trustProxy: boolean | string;
  readonly maxUploadBytes: number;
  /** Size limit of a CSV bulk import (millions of rows exceed the audio upload limit). */
  readonly maxImportBytes: number;
  /** Billing increment in seconds; 0 bills the exact billsec (contract §6). */
  readonly billingIncrement: number;
  readonly adminPassword: string | undefined;
  /** Webhook URLs (and survey API calls) may reach loopback and private addresses (tests, labs). */
  readonly webhookAllowPrivate: boolean;
  /** Events older than this are pruned (days). */
  readonly eventRetentionDays: number;
  /** PostgreSQL: an engine whose heartbeat is this old (by the database's clock) is taken for dead (seconds). */
  readonly engineStaleSeconds: number;
  /** This server's address as webhook receivers should see links (e.g. https://dialer.example.com). */
  readonly publicUrl: string;
  /** How long a browser sign-in (the console's session cookie) lasts, from sign-in (hours). */
  readonly sessionHours: number;
  /** Instance-wide contact caps, counted across every owner's campaigns; null: off (CONTACT_CAPS). */
  readonly contactCaps: ContactCaps | null;
  /** Instance-wide legal calling hours in each contact's local time; null: off (CALLING_HOURS). */
  readonly callingHours: CallingHours | null;
  /** The SMTP relay of e-mail reminders (smtp://host:port, no auth or TLS); undefined: no e-mail. */
  readonly smtpUrl: string | undefined;
  /** The sender of e-mail reminders. */
  readonly mailFrom: string;
  /**
   * The country numbers written without `+` are read in (ISO 3166 alpha-2, e.g. "US"), unless
   * their owner's account names another; undefined: such numbers are read as international.
   */
  readonly defaultCountry: string | undefined;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function timeZone(env: Env): string {
  const raw = env.TIME_ZONE || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: raw });
  } catch {
    throw new ConfigError(`TIME_ZONE must be an IANA time zone such as "Europe/Paris", got "${raw}"`);
  }
  return raw;
}

function trustProxy(env: Env): boolean | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  // Fastify also takes a comma-separated list of addresses or CIDR ranges.
  if (/^[0-9a-fA-F.:/,\s]+$/.test(raw)) return raw;
  throw new ConfigError(`TRUST_PROXY must be true, false or a list of proxy addresses, got "${raw}"`);
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL must be a postgres:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must be a postgres:// URL, got "${raw}"`);
  }
  return raw;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim();
  if (raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function smtpUrl(env: Env): string | undefined {
  const raw = (env.SMTP_URL ?? '').trim();
  if (raw === '') return undefined;
  if (!/^smtp:\/\/[^/\s:]+(:\d{1,5})?\/?$/.test(raw) && !/^smtp:\/\/\[[0-9a-fA-F:.]+\](:\d{1,5})?\/?$/.test(raw)) {
    throw new ConfigError(`SMTP_URL must be smtp://host[:port] (a relay that needs no login or TLS), got "${raw}"`);
  }
  return raw;
}

function publicUrl(env: Env, host: string): string {
  const raw = (env.PUBLIC_URL ?? '').trim();
  if (raw === '') return `http://${host.includes(':') ? `[${host}]` : host}:${env.PORT || 8000}`;
  if (!/^https?:\/\/[^/\s]+$/.test(raw.replace(/\/$/, ''))) {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL with no path, such as https://dialer.example.com, got "${raw}"`);
  }
  return raw.replace(/\/$/, '');
}

/** CONTACT_CAPS: off, regulation_f, or a JSON object; CALLING_HOURS: off, HH:MM-HH:MM, or a JSON object. */
function policy<T>(env: Env, name: string, parse: (v: unknown) => { value: T | null } | { error: string }, example: string): T | null {
  const raw = (env[name] ?? '').trim();
  let value: unknown = raw;
  if (raw.startsWith('{')) {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${name} must be valid JSON when it starts with "{", got "${raw}"`);
    }
  }
  const parsed = parse(value);
  if ('error' in parsed) throw new ConfigError(`${name} (e.g. ${example}): ${parsed.error} Got "${raw}"`);
  return parsed.value;
}

/** DEFAULT_COUNTRY: the country numbers written without + are read in. */
function defaultCountry(env: Env): string | undefined {
  const raw = (env.DEFAULT_COUNTRY ?? '').trim();
  if (raw === '') return undefined;
  const code = countryCode(raw);
  if (!code) throw new ConfigError(`DEFAULT_COUNTRY must be an ISO 3166 alpha-2 country code such as "US", got "${raw}"`);
  return code;
}

/** Reads and validates the configuration; throws ConfigError with a one-line message. */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LogLevels.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LogLevels.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const host = env.HOST || '127.0.0.1';
  return Object.freeze({
    port: integer(env, 'PORT', 8000, 0, 65535),
    host,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: databaseUrl(env),
    databaseRetrySeconds: integer(env, 'DATABASE_RETRY_SECONDS', 60, 0, 86400),
    timeZone: timeZone(env),
    logLevel,
    trustProxy: trustProxy(env),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_MB', 20, 1, 10240) * 1024 * 1024,
    maxImportBytes: integer(env, 'MAX_IMPORT_MB', 1024, 1, 102400) * 1024 * 1024,
    billingIncrement: integer(env, 'BILLING_INCREMENT', 6, 0, 3600),
    adminPassword: env.DIALER_ADMIN_PASSWORD || undefined,
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    engineStaleSeconds: integer(env, 'ENGINE_STALE_SECONDS', 15, 6, 3600),
    publicUrl: publicUrl(env, host),
    sessionHours: integer(env, 'SESSION_HOURS', 12, 1, 8760),
    contactCaps: policy(env, 'CONTACT_CAPS', parseContactCaps, 'regulation_f'),
    callingHours: policy(env, 'CALLING_HOURS', parseCallingHours, '08:00-21:00'),
    smtpUrl: smtpUrl(env),
    mailFrom: (env.MAIL_FROM ?? '').trim() || 'reminders@localhost',
    defaultCountry: defaultCountry(env),
  });
}
