/**
 * The one CSV writer of every export (phonebook, DNC list, CDR): csv-stringify, fed a batch of
 * rows at a time, so an export streams in constant memory whatever its length.
 *
 * Spreadsheet safety (OWASP "CSV Injection"): a cell beginning with `=`, `+`, `-`, `@`, tab or
 * carriage return is run as a formula by Excel, LibreOffice and Google Sheets (`=HYPERLINK(…)`,
 * `@SUM(1)`, `-2+3+cmd|' /C calc'!A0`). Such a cell is written with a single quote in front,
 * which makes the spreadsheet show it as text. `?csv_injection_safe=false` turns this off for
 * machine consumers that want the values exactly as stored.
 *
 * A cell that is purely a number — digits, an optional leading `+` or `-`, an optional
 * decimal part (`+12035550101`, `-5`, `0.00000`) — is left alone: a spreadsheet reads it as a
 * number, and a number calls no function, references no cell and reaches no other program,
 * so there is nothing to neutralise; quoting it would turn every international phone number
 * into `'+1…` for every consumer. Anything more (`+1+1`, `-2+3+cmd|…`, `+1 203 555`) is not a
 * plain number and is neutralised.
 *
 * csv-stringify's own `escape_formulas` option is not used: it would quote those numbers too.
 *
 * The import reads its own export back: restoreCell drops the quote again. So that this is
 * lossless, a value that already begins with quotes followed by one of those characters
 * (`'=x`) gets one more quote on the way out (`''=x`), and loses exactly one on the way in.
 */
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from './errors.ts';
import { startedStream } from './stream.ts';

/** The query parameter that turns neutralising off (`false`, `0`); on by default. */
export const CSV_SAFE_PARAM = 'csv_injection_safe';

export type CsvCell = string | number | bigint | boolean | null | undefined;

export interface CsvOptions {
  /** Neutralise formula-like cells (the default; see the module comment). */
  injectionSafe: boolean;
  /** `\n` (the default) or `\r\n` (RFC 4180, as the CDR export has always used). */
  recordDelimiter?: '\n' | '\r\n';
}

const QUOTE = 0x27; // '
// = + - @ tab CR
const FORMULA_START = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** Whether `value`, past any leading single quotes, begins with a formula character. */
function formulaAfterQuotes(value: string): boolean {
  let at = 0;
  while (value.charCodeAt(at) === QUOTE) at++;
  return FORMULA_START.has(value.charCodeAt(at));
}

/** `value` as it is written to a spreadsheet-safe CSV. */
export function neutraliseCell(value: string): string {
  const first = value.charCodeAt(0);
  if (first !== QUOTE && !FORMULA_START.has(first)) return value; // the common case, kept cheap
  return formulaAfterQuotes(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** The inverse, for imports: a value written by neutraliseCell comes back as it was. */
export function restoreCell(value: string): string {
  return value.charCodeAt(0) === QUOTE && formulaAfterQuotes(value) ? value.slice(1) : value;
}

/** `?csv_injection_safe=` read with the contract's booleans; anything else is a 400. */
export function csvOptionsOf(request: FastifyRequest, recordDelimiter?: CsvOptions['recordDelimiter']): CsvOptions {
  const raw = (request.query as Record<string, unknown> | undefined)?.[CSV_SAFE_PARAM];
  if (raw === undefined || raw === '') return { injectionSafe: true, recordDelimiter };
  const text = String(raw).toLowerCase();
  if (text === 'true' || text === '1') return { injectionSafe: true, recordDelimiter };
  if (text === 'false' || text === '0') return { injectionSafe: false, recordDelimiter };
  throw invalid({ [CSV_SAFE_PARAM]: ['Must be a valid boolean.'] });
}

/** CSV text: the header, then each batch of rows as one string. */
export async function* csvChunks(
  header: readonly string[],
  batches: AsyncIterable<CsvCell[][]>,
  { injectionSafe, recordDelimiter = '\n' }: CsvOptions,
): AsyncGenerator<string> {
  const options = {
    record_delimiter: recordDelimiter === '\r\n' ? 'windows' : 'unix',
    cast: { string: injectionSafe ? neutraliseCell : (value: string) => value },
  } as const;
  // The header goes out with the first batch, so that a stream started by sendCsv has read its
  // first rows before the 200 is sent (a query that fails there is an error answer, not a cut CSV).
  let pending = stringify([[...header]], options);
  for await (const rows of batches) {
    if (rows.length === 0) continue;
    yield pending + stringify(rows, options);
    pending = '';
  }
  if (pending) yield pending;
}

/**
 * Answers 200 with `chunks` as a CSV attachment named `<name>.csv`, once the first chunk (the
 * header and the first rows) is ready: what fails before then is an ordinary error answer.
 */
export async function sendCsv(reply: FastifyReply, name: string, chunks: AsyncGenerator<string>): Promise<FastifyReply> {
  const body = await startedStream(chunks);
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .send(body as never); // a stream is sent as is, not serialized
}
