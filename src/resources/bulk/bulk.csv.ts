/**
 * The CSV side of bulk import and export: what each kind of file holds (its header, how a row
 * becomes the columns we COPY, or why it is rejected), and CSV text for COPY and for exports.
 */
import { jsonObjectProblem } from '../../http/fields.ts';
import { restoreCell } from '../../http/csv.ts';
import { normalizePhone, phoneKey } from '../../http/phone.ts';

/** A row's values in the order of `ImportTarget.columns`, or the reason it is rejected. */
export type RowReader = (record: string[]) => string[] | string;

/** The header read: how to read each row, and whether the first record was already data. */
export interface HeaderReading {
  read: RowReader;
  headerIsData: boolean;
}

export interface ImportTarget {
  /** The table rows are copied into, and its parent key (the phonebook or the DNC list). */
  table: 'contacts' | 'dnc_contacts';
  parentColumn: 'phonebook_id' | 'dnc_id';
  /** The parent's table and REST resource (the import.finished event names it). */
  parent: { table: 'phonebooks' | 'dnc_lists'; resource: 'phonebook' | 'dnc-list' };
  /** The columns a RowReader yields, after the parent key. */
  columns: readonly string[];
  /**
   * Reads the first record; a string says why the file is not one we import (contract: 400).
   * Numbers without `+` are read in `country` (the parent's owner's, else DEFAULT_COUNTRY).
   */
  readHeader(first: string[], country?: string): HeaderReading | string;
  /** The duplicate key, over a staged row `s` and over an existing row `e`. */
  duplicateKey: { staged: string; existing: string };
}

const maxFullName = 200;

function headerNames(first: string[]): string[] {
  return first.map((name) => name.trim().toLowerCase());
}

/**
 * Drops the quote our own export puts before a formula-like cell (src/http/csv.ts), so that
 * an export imports back into the same contacts. In place: a row is read once.
 */
function restoreRecord(record: string[]): string[] {
  for (let i = 0; i < record.length; i++) if (record[i].charCodeAt(0) === 0x27) record[i] = restoreCell(record[i]);
  return record;
}

function columnCountError(expected: number, found: number): string {
  return `Expected ${expected} columns, found ${found}.`;
}

/** Reads a contact row: contact, full_name, status and the rest as additional_vars (§1). */
function contactReader(names: string[], country: string | undefined): RowReader {
  const at = (name: string) => names.indexOf(name);
  const [contact, fullName, status, vars] = [at('contact'), at('full_name'), at('status'), at('additional_vars')];
  const known = new Set([contact, fullName, status, vars]);
  const extras = names.map((name, i) => [name, i] as const).filter(([, i]) => !known.has(i));
  return (record) => {
    if (record.length !== names.length) return columnCountError(names.length, record.length);
    restoreRecord(record);
    const number = normalizePhone(record[contact]);
    if (!number) return 'contact: Enter a valid phone number.';
    const name = fullName < 0 ? '' : record[fullName];
    if (name.length > maxFullName) return `full_name: Ensure this field has no more than ${maxFullName} characters.`;
    const state = status < 0 || record[status].trim() === '' ? '1' : record[status].trim();
    if (state !== '0' && state !== '1') return 'status: Select a valid choice. It must be 0 or 1.';
    let object: Record<string, unknown> = {};
    if (vars >= 0 && record[vars].trim() !== '') {
      try {
        object = JSON.parse(record[vars]);
      } catch {
        return 'additional_vars: Value must be valid JSON.';
      }
    }
    if (typeof object === 'object' && object !== null && !Array.isArray(object)) {
      for (const [key, i] of extras) object[key] = record[i];
    }
    // The same limits as the API's (contract §8: 10 levels, 64 KB), extra columns included.
    const problem = jsonObjectProblem(object);
    return problem ? `additional_vars: ${problem}` : [number, phoneKey(number, country), name, JSON.stringify(object), state];
  };
}

export const contactTarget: ImportTarget = {
  table: 'contacts',
  parentColumn: 'phonebook_id',
  parent: { table: 'phonebooks', resource: 'phonebook' },
  columns: ['contact', 'phone_key', 'full_name', 'additional_vars', 'status'],
  readHeader(first, country) {
    const names = headerNames(first);
    if (!names.includes('contact')) return 'The file must be a CSV file with a header row holding a "contact" column.';
    return { read: contactReader(names, country), headerIsData: false };
  },
  // One identity per number (contract §1): duplicates are numbers with the same key.
  duplicateKey: { staged: 's.phone_key', existing: 'e.phone_key' },
};

function dncReader(column: number, country: string | undefined): RowReader {
  return (record) => {
    if (record.length <= column) return columnCountError(column + 1, record.length);
    const number = normalizePhone(restoreCell(record[column]));
    return number ? [number, phoneKey(number, country)] : 'phone_number: Enter a valid phone number.';
  };
}

export const dncTarget: ImportTarget = {
  table: 'dnc_contacts',
  parentColumn: 'dnc_id',
  parent: { table: 'dnc_lists', resource: 'dnc-list' },
  columns: ['phone_number', 'phone_key'],
  readHeader(first, country) {
    const names = headerNames(first);
    const named = names.includes('phone_number') ? names.indexOf('phone_number') : names.indexOf('contact');
    if (named >= 0) return { read: dncReader(named, country), headerIsData: false };
    // A single column: a list of numbers, with or without a header of another name.
    if (names.length === 1) return { read: dncReader(0, country), headerIsData: normalizePhone(first[0]) !== undefined };
    return 'The file must be a CSV file with a "phone_number" column, or a single column of numbers.';
  },
  duplicateKey: { staged: 's.phone_key', existing: 'e.phone_key' },
};

/**
 * One CSV field. Empty values are quoted because PostgreSQL's COPY reads an unquoted empty
 * field as NULL; a backslash is quoted so that a lone `\.` is never the end-of-data marker.
 */
export function csvField(value: string): string {
  return value === '' || /[",\r\n\\]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

/** True when the start of a file is not text: a NUL byte, or bytes that are not UTF-8. */
export function looksBinary(chunk: Buffer): boolean {
  const head = chunk.subarray(0, 64 * 1024);
  if (head.includes(0)) return true;
  try {
    // stream: true, so that a character cut at the end of the sample is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return false;
  } catch {
    return true;
  }
}
