/**
 * multipart/form-data bodies built by hand (so that they can also be built wrong), and the
 * fast-check arbitraries of the two uploads: an audio file and a CSV import.
 */
import fc from 'fast-check';
import { makeMp3, makeOgg, makeWav } from '../audio-fixtures.ts';
import { hostileString } from './values.ts';

export interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  type?: string;
}

const BOUNDARY = 'fuzzboundary7MA4YWxkTrZu0gW';

/** The body and Content-Type of a form holding `parts`, in order. */
export function multipart(parts: Part[], boundary = BOUNDARY): { headers: Record<string, string>; body: Uint8Array } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename !== undefined ? `; filename="${part.filename}"` : '';
    const type = part.type ? `\r\nContent-Type: ${part.type}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}${type}\r\n\r\n`, 'utf8'));
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value, 'utf8') : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat(chunks) };
}

/** A WAV header whose format fields are arbitrary (channels 0 or 65,535, rate 0 …). */
function wavWith(channels: number, rate: number, bits: number, data: Uint8Array): Buffer {
  const wav = makeWav(0.05);
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt16LE(bits, 34);
  return Buffer.concat([wav.subarray(0, 44), Buffer.from(data)]);
}

/** Audio bytes: valid files, truncated or corrupted ones, impostors. */
const audioBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.constantFrom(makeWav(0.1), makeMp3(0.1), makeOgg(0.1)),
  fc.tuple(fc.constantFrom(makeWav(0.1), makeMp3(0.1), makeOgg(0.1)), fc.nat({ max: 200 })).map(([b, n]) => b.subarray(0, n)),
  fc.tuple(fc.constantFrom(0, 1, 2, 65535), fc.constantFrom(0, 8000, 4294967295), fc.constantFrom(0, 8, 16, 65535), fc.uint8Array({ maxLength: 64 })).map(
    ([c, r, b, d]) => wavWith(c, r, b, d),
  ),
  fc.uint8Array({ maxLength: 64 }).map((d) => Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from(d)])),
  fc.uint8Array({ maxLength: 300 }),
);

const filename = fc.oneof(
  fc.constantFrom('a.wav', 'a.mp3', 'a.ogg', 'noext', '', '../../etc/passwd', 'a.exe', 'x'.repeat(300) + '.wav', 'a\u0000.wav', 'ü.wav'),
  fc.string({ maxLength: 20 }),
);
const mime = fc.constantFrom('audio/wav', 'audio/mpeg', 'application/octet-stream', 'text/plain', '', 'audio/ogg');
const formValue = fc.oneof(fc.string({ maxLength: 30 }), hostileString);

/** The parts of an audio upload: name, audio_file, user_id — each sometimes missing, repeated or hostile. */
export function audioParts(userIds: fc.Arbitrary<string>): fc.Arbitrary<Part[]> {
  const file = fc.record({ name: fc.constant('audio_file'), value: audioBytes, filename, type: mime });
  return fc
    .record(
      {
        name: fc.record({ name: fc.constant('name'), value: formValue }),
        user: fc.record({ name: fc.constant('user_id'), value: userIds }),
        file,
        extraFile: file,
        extra: fc.array(fc.record({ name: fc.string({ maxLength: 8 }), value: formValue }), { maxLength: 25 }),
      },
      { requiredKeys: [] },
    )
    .map((p) => [p.name, p.user, ...(p.extra ?? []), p.file, p.extraFile].filter((x) => x !== undefined) as Part[]);
}

const csvCell = fc.oneof(
  fc.constantFrom('+12035550199', '2035550198', '', '=cmd|x', 'abc', '1'.repeat(30), '"', '""x', 'a,b', '\u0000', '{"a":1}'),
  fc.string({ maxLength: 12 }),
);
const csvText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('contact,first_name,last_name,email\r\n', 'phone_number\r\n', 'contact\n', '', 'x,y,z\n', '\ufeffcontact,additional_vars\n'),
    fc.array(fc.array(csvCell, { minLength: 1, maxLength: 6 }), { maxLength: 6 }),
    fc.constantFrom('\r\n', '\n', '\r'),
  )
  .map(([header, rows, eol]) => header + rows.map((r) => r.join(',')).join(eol));

/** The parts of a CSV import: `skip_duplicates`, `file` — sometimes missing, repeated, or another name. */
export const importParts: fc.Arbitrary<Part[]> = fc
  .record(
    {
      skip: fc.record({ name: fc.constant('skip_duplicates'), value: fc.constantFrom('true', '0', 'yes', '\u0000') }),
      file: fc.record({ name: fc.constantFrom('file', 'csv', ''), value: csvText, filename: fc.constantFrom('a.csv', 'b.txt', ''), type: fc.constantFrom('text/csv', 'application/octet-stream') }),
      extraFile: fc.record({ name: fc.constant('file'), value: csvText, filename: fc.constant('c.csv') }),
    },
    { requiredKeys: ['file'] },
  )
  .map((p) => [p.skip, p.file, p.extraFile].filter((x) => x !== undefined) as Part[]);
