/** Phone numbers (contract §1): normalisation and the digits that DNC matching compares. */

/**
 * Drops spaces, dashes, dots and parentheses; what remains must be an optional `+` and 3–20
 * digits. Returns the normalised number, or undefined when it is not a phone number.
 */
export function normalizePhone(input: string): string | undefined {
  const stripped = input.trim().replace(/[\s\-.()]/g, '');
  return /^\+?\d{3,20}$/.test(stripped) ? stripped : undefined;
}

/** Digits only: `+1 (203) 555-0101` and `12035550101` are the same number for DNC. */
export function phoneDigits(number: string): string {
  return number.replace(/\D/g, '');
}
