/**
 * SMS character encodings and parts (GSM 03.38 / 03.40): a text is sent in the GSM 7-bit default
 * alphabet when every character is in it (the extension table's characters, such as € [ ] { },
 * take two septets: an escape and the character), else in UCS-2 (UTF-16 code units, so a
 * character outside the BMP takes two). One part holds 160 septets or 70 units; a longer text
 * is split into parts of 153 septets or 67 units, the rest of each part being the 6-octet
 * concatenation header (UDH). `smsParts` is what billing counts; the SMPP driver sends `splitSms`.
 */

export type SmsEncoding = 'gsm7' | 'ucs2';

/** The GSM 7-bit default alphabet (one septet each). */
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The GSM 7-bit extension table (two septets each: ESC and the character). */
const GSM_EXTENSION = '\f^{}\\[~]|€';

const basic = new Set(GSM_BASIC);
const extension = new Set(GSM_EXTENSION);

export const Limits = {
  gsm7: { single: 160, part: 153 },
  ucs2: { single: 70, part: 67 },
} as const;

/** 'gsm7' when every character of `text` is in the GSM alphabet or its extension, else 'ucs2'. */
export function encodingOf(text: string): SmsEncoding {
  for (const char of text) if (!basic.has(char) && !extension.has(char)) return 'ucs2';
  return 'gsm7';
}

/** The units of each character: septets (GSM-7) or UTF-16 code units (UCS-2). */
function units(text: string, encoding: SmsEncoding): { char: string; size: number }[] {
  // Iterating a string yields code points, so a surrogate pair stays whole (size 2 in UCS-2).
  return Array.from(text, (char) => ({ char, size: encoding === 'gsm7' ? (extension.has(char) ? 2 : 1) : char.length }));
}

/**
 * `text` cut into the parts it is sent as: one part when it fits a single message, else parts
 * of at most 153 septets / 67 units, never splitting an escaped character or a surrogate pair.
 */
export function splitSms(text: string): { encoding: SmsEncoding; parts: string[] } {
  const encoding = encodingOf(text);
  const chars = units(text, encoding);
  const total = chars.reduce((sum, c) => sum + c.size, 0);
  if (total <= Limits[encoding].single) return { encoding, parts: [text] };
  const max = Limits[encoding].part;
  const parts: string[] = [];
  let current = '';
  let size = 0;
  for (const { char, size: n } of chars) {
    if (size + n > max) {
      parts.push(current);
      current = '';
      size = 0;
    }
    current += char;
    size += n;
  }
  if (current) parts.push(current);
  return { encoding, parts };
}

/** The encoding of `text` and the number of parts it is billed (and sent) as. */
export function smsParts(text: string): { encoding: SmsEncoding; parts: number } {
  const { encoding, parts } = splitSms(text);
  return { encoding, parts: parts.length };
}
