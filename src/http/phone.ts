/**
 * Phone numbers (contract §1): normalisation, and a number's identity — its key.
 *
 * A number's key is its E.164 form without the `+` (`+1 203 555 0101`, `12035550101` and, with
 * the country US, `(203) 555-0101` are all `12035550101`), or, when it cannot be parsed, its
 * digits (the rule before keys). Every comparison of numbers (DNC, one subscriber per number in
 * a campaign, time zones, caller-id area codes, caps) compares keys, and every writer of a
 * number stores the key that `phoneKey` gives (columns `phone_key`, migration 0023).
 */
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Drops spaces, dashes, dots and parentheses; what remains must be an optional `+` and 3–20
 * digits. Returns the normalised number, or undefined when it is not a phone number.
 */
export function normalizePhone(input: string): string | undefined {
  const stripped = input.trim().replace(/[\s\-.()]/g, '');
  return /^\+?\d{3,20}$/.test(stripped) ? stripped : undefined;
}

/** Digits only: `+1 (203) 555-0101` and `12035550101` have the same digits. */
export function phoneDigits(number: string): string {
  return number.replace(/\D/g, '');
}

/** `code` (any case) as a country libphonenumber parses against ("US"), or undefined. */
export function countryCode(code: string): string | undefined {
  const upper = code.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && isSupportedCountry(upper) ? upper : undefined;
}

/**
 * How a national number of one shape is made international: the first number of each shape
 * (country, length, first 6 digits) is parsed by libphonenumber (~10 µs), and the others of that
 * shape reuse what it did — drop the trunk prefix (or international prefix and country code)
 * and put the country code in front — or, when it was not a possible number, keep the digits.
 * Within a shape, libphonenumber's decisions (trunk prefix, international prefix, possible
 * length) depend only on those leading digits and the length; a CSV import of a million
 * national numbers so pays a Map lookup per row, not a parse.
 */
type Shape = { drop: number; prefix: string } | null;
const shapes = new Map<string, Shape>();
const SHAPES_MAX = 200_000;
const SHAPE_DIGITS = 6;

function shapeOf(digits: string, country: string): Shape {
  const parsed = parsePhoneNumberFromString(digits, { defaultCountry: country as CountryCode, extract: false });
  if (!parsed || !parsed.isPossible()) return null;
  const national = parsed.nationalNumber as string;
  if (!digits.endsWith(national)) return null;
  return { drop: digits.length - national.length, prefix: parsed.countryCallingCode as string };
}

/**
 * The key of `number` (contract §1): its E.164 digits when libphonenumber reads it as a possible
 * number, else its digits. A number written with `+` is in international form already: its key
 * is its digits. Without a country (no `DEFAULT_COUNTRY`, no user override) a number without `+`
 * is read as international too, as before keys: its digits. So only numbers written nationally
 * under a country are parsed, and in SQL `regexp_replace(number, '[^0-9]', '', 'g')` is the key
 * of every other number (migration 0023 relies on it).
 */
export function phoneKey(number: string, country?: string | null): string {
  const digits = phoneDigits(number);
  if (!country || number.trimStart().startsWith('+') || digits.length < 3) return digits;
  const id = `${country}${digits.length}:${digits.slice(0, SHAPE_DIGITS)}`;
  let shape = shapes.get(id);
  if (shape === undefined) {
    shape = shapeOf(digits, country);
    if (shapes.size >= SHAPES_MAX) shapes.clear();
    shapes.set(id, shape);
  }
  return shape ? shape.prefix + digits.slice(shape.drop) : digits;
}

/**
 * The area code of a key, for caller-id selection: the 3-digit NPA of a North American (+1)
 * number (`12035550101` → `203`); undefined for other countries (their area codes have no fixed
 * length, and libphonenumber-js carries no geographic area code data) and for unparsed keys.
 */
export function areaCodeOf(key: string): string | undefined {
  if (!/^1\d{10}$/.test(key)) return undefined;
  return key.slice(1, 4);
}

/**
 * The national forms of a key (`12035550101` → `2035550101`, `442079460018` → `2079460018` and
 * `02079460018`), to find a number stored as written nationally; [] for unparsed keys.
 */
export function nationalFormsOf(key: string): string[] {
  const parsed = parsePhoneNumberFromString(`+${key}`, { extract: false });
  if (!parsed) return [];
  const national = parsed.nationalNumber as string;
  return [national, `0${national}`, `1${national}`];
}
