/**
 * Bulk import of a CSV stream into a phonebook or a DNC list, the one function behind the
 * HTTP route and the CLI: csv-parse → validate → COPY, streaming end to end, in one transaction.
 * Valid rows are imported; every invalid row is counted and the first ones are reported with
 * their line in the file (the header is line 1), never silently dropped.
 */
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { Database } from '../../db/database.ts';
import { EVENTS_ON } from '../../campaign/events.ts';
import { countryOf } from '../../campaign/phone-country.ts';
import { withCopySession, type CopySession, type CopyWriter } from './bulk.copy.ts';
import { holdsNul, NUL_MESSAGE } from '../../http/null-characters.ts';
import { csvLine, type ImportTarget, looksBinary, type RowReader } from './bulk.csv.ts';

export interface ImportOptions {
  /** Skip numbers already in the phonebook or list, and repeats within the file. */
  skipDuplicates: boolean;
  /** Whether the source was cut at its size limit (a multipart upload); checked before commit. */
  truncated?: () => boolean;
  /** Reads what follows the file in its upload; throws (before commit) when that is refused. */
  rest?: () => Promise<void>;
  /** DEFAULT_COUNTRY: numbers without `+` are read in it unless the parent's owner names another. */
  defaultCountry?: string;
  /** Called every PROGRESS_ROWS records read, and at the end. */
  onProgress?: (rows: number) => void;
}

export interface Rejection {
  line: number;
  error: string;
}

export interface ImportSummary {
  imported: number;
  duplicates_skipped: number;
  rejected_count: number;
  rejected: Rejection[];
}

/** A file we will not import at all; nothing was changed. */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly kind: 'not-csv' | 'too-large' = 'not-csv',
  ) {
    super(message);
  }
}

export const MAX_LISTED_REJECTIONS = 100;
/** Columns of a file: contact, full_name, status, additional_vars and the extra variables of a contact. */
export const MAX_COLUMNS = 1000;
const PROGRESS_ROWS = 10_000;

interface Tally {
  valid: number;
  rejected_count: number;
  rejected: Rejection[];
}

/** Imports `source` (CSV bytes) into the phonebook or DNC list `parentId` of `target`. */
export async function importCsv(
  database: Database,
  target: ImportTarget,
  parentId: number,
  source: Readable,
  options: ImportOptions,
): Promise<ImportSummary> {
  const country = await countryOf(database.db, target.parent.table, parentId, options.defaultCountry);
  return withCopySession(database, async (session) => {
    const staged = options.skipDuplicates;
    const columns = target.columns.join(', ');
    let writer: CopyWriter | undefined;
    // Opened at the first valid row, so a file refused at its header has started nothing.
    const open = async (): Promise<CopyWriter> => {
      if (!staged) return session.copyIn(`${target.table} (${target.parentColumn}, ${columns})`);
      await session.query(
        `create temp table bulk_staged on commit drop as select 0 as line, ${columns} from ${target.table} with no data`,
      );
      return session.copyIn(`bulk_staged (line, ${columns})`);
    };
    const tally = await readRows(source, target, country, options, (line, values) => {
      const text = `${staged ? line : parentId},${csvLine(values)}`;
      if (writer) return writer.write(text);
      return open().then((opened) => {
        writer = opened;
        return writer.write(text);
      });
    });
    await writer?.end();
    await options.rest?.();
    if (options.truncated?.()) throw new ImportFileError('The file is larger than the import limit.', 'too-large');
    const imported = staged && writer ? await insertStaged(session, target, parentId) : tally.valid;
    const summary = {
      imported,
      duplicates_skipped: tally.valid - imported,
      rejected_count: tally.rejected_count,
      rejected: tally.rejected,
    };
    await finishedEvent(session, target, parentId, summary);
    return summary;
  });
}

/** import.finished (issue 14), in the import's transaction: where to, and the counts. */
async function finishedEvent(session: CopySession, target: ImportTarget, parentId: number, summary: ImportSummary): Promise<void> {
  const { table, resource } = target.parent;
  await session.query(
    `insert into events (type, user_id, data)
     select 'import.finished', p.user_id, json_build_object($2::text, $3::text || p.id || '/', 'imported', $4::int,
       'duplicates_skipped', $5::int, 'rejected_count', $6::int)
     from ${table} p where p.id = $1::integer and ${EVENTS_ON}`,
    [parentId, resource.replace('-', '_'), `/rest-api/${resource}/`, summary.imported, summary.duplicates_skipped, summary.rejected_count],
  );
}

/** Moves staged rows into the table: the first of each number in the file, unless already there. */
async function insertStaged(session: CopySession, target: ImportTarget, parentId: number): Promise<number> {
  const columns = target.columns.join(', ');
  const { staged, existing } = target.duplicateKey;
  const result = await session.query(
    `insert into ${target.table} (${target.parentColumn}, ${columns})
     select $1::integer, ${columns}
     from (select distinct on (${staged}) * from bulk_staged s order by ${staged}, line) s
     where not exists (select 1 from ${target.table} e where e.${target.parentColumn} = $1::integer and ${existing} = ${staged})
     order by line`,
    [parentId],
  );
  return result.affectedRows;
}

/**
 * Parses and validates the stream, handing each valid row (with its line) to `emit`. Lines are
 * counted here rather than with csv-parse's `info`, which triples the parsing time: a record
 * starts on the line after the previous one ended, plus the newlines inside its quoted fields.
 * A record csv-parse cannot read (a stray quote) makes the whole file unreadable: past it, where
 * rows start is a guess.
 */
async function readRows(
  source: Readable,
  target: ImportTarget,
  country: string | undefined,
  options: ImportOptions,
  emit: (line: number, values: string[]) => Promise<void> | undefined,
): Promise<Tally> {
  const tally: Tally = { valid: 0, rejected_count: 0, rejected: [] };
  const parser = parse({ bom: true, relax_column_count: true });
  // Errors of the feeding side surface through the parser; this only keeps them handled.
  const fed = pipeline(textOnly(source), parser).then(
    () => undefined,
    (err: Error) => err,
  );
  let read: RowReader | undefined;
  let lastLine = 0;
  let rows = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const line = lastLine + 1;
      lastLine = line + newlinesIn(record);
      if (record.length === 1 && record[0].trim() === '') continue; // a blank line
      if (!read) {
        if (record.length > MAX_COLUMNS) {
          throw new ImportFileError(`The header has ${record.length} columns; a file may have at most ${MAX_COLUMNS}.`);
        }
        if (record.some(holdsNul)) throw new ImportFileError(`The header: ${NUL_MESSAGE}`);
        const header = target.readHeader(record, country);
        if (typeof header === 'string') throw new ImportFileError(header);
        read = header.read;
        if (!header.headerIsData) continue;
      }
      // PostgreSQL stores no NUL: a cell holding one (past the binary check of the file's start) rejects its row.
      const values = record.some(holdsNul) ? NUL_MESSAGE : read(record);
      if (typeof values !== 'string') {
        tally.valid++;
        const wait = emit(line, values);
        if (wait) await wait;
      } else if (++tally.rejected_count <= MAX_LISTED_REJECTIONS) {
        tally.rejected.push({ line, error: values });
      }
      if (++rows % PROGRESS_ROWS === 0) options.onProgress?.(rows);
    }
  } catch (err) {
    if (err instanceof CsvError) throw new ImportFileError(`The file is not valid CSV: ${err.message}`);
    throw err;
  }
  const failure = await fed;
  if (failure) throw failure;
  if (!read) throw new ImportFileError('The submitted file is empty.');
  options.onProgress?.(rows);
  return tally;
}

function newlinesIn(record: string[]): number {
  let count = 0;
  for (const field of record) {
    for (let at = field.indexOf('\n'); at !== -1; at = field.indexOf('\n', at + 1)) count++;
  }
  return count;
}

/** Passes the stream through, refusing it at once when its start is not text. */
async function* textOnly(source: Readable): AsyncGenerator<Buffer> {
  let checked = false;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    if (!checked && chunk.length > 0) {
      if (looksBinary(chunk)) throw new ImportFileError('The file is not a CSV file: it holds binary data.');
      checked = true;
    }
    yield chunk;
  }
}
