/**
 * What a caller id's `areacode` is compared with (issue 16 item 5): the dialled number's national
 * significant number, whose leading digits are its area code (+1 203 555 0101 → "2035550101", so
 * areacode 203 matches), and, as before, its whole international digits (areacode 33 or 331
 * matches +33 1 40 …). One small function so that the phone-number key (E.164 with a default
 * country, issue 16 item 1) can replace the parsing here later.
 */
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';

/** A digit string an areacode may be a prefix of, and how many digits of the whole number come before it. */
export interface AreaCodeTarget {
  digits: string;
  offset: number;
}

/** What an areacode may be a prefix of: the national number (when parsable), then every digit. */
export function areaCodeTargets(number: string, defaultCountry?: CountryCode): AreaCodeTarget[] {
  const digits = number.replace(/\D/g, '');
  const parsed = parsePhoneNumberFromString(number, defaultCountry);
  const national = parsed?.nationalNumber ? String(parsed.nationalNumber) : '';
  const whole = { digits, offset: 0 };
  return national && national !== digits && digits.endsWith(national) ? [{ digits: national, offset: digits.length - national.length }, whole] : [whole];
}

/**
 * How specific an areacode's match of the number is: how many of the whole number's digits it
 * pins down (so 203 on the national number and 1203 on the whole one are equally specific); 0
 * for `*`, which matches any number; -1 when it does not match.
 */
export function areaCodeMatch(areacode: string, targets: AreaCodeTarget[]): number {
  if (areacode.trim() === '*') return 0;
  const code = areacode.replace(/\D/g, '');
  if (!code) return -1;
  const lengths = targets.filter((t) => t.digits.startsWith(code)).map((t) => t.offset + code.length);
  return lengths.length ? Math.max(...lengths) : -1;
}
