/** Request fields the appointment resources share: owned links, dates, e-mail addresses. */
import { Type } from '@sinclair/typebox';
import { type Field, FieldError, link } from '../../http/fields.ts';
import { DATE_FORMAT_MESSAGE, readCampaignDate } from '../campaigns/campaign.dates.ts';
import { ownedRow } from '../campaigns/fields.ts';
import type { OwnedTable } from './crud.ts';

/** A link to a row of an owned table the caller may use (their own; an admin: any). */
export function ownedLink(resources: string[], table: OwnedTable, opts: { required?: boolean; nullable?: boolean } = {}) {
  return link(resources, ownedRow(table), opts);
}

/**
 * A date and time (contract §1: `YYYY-MM-DD HH:MM:SS` or ISO 8601; without an offset, in the
 * instance time zone); returned as ISO text. "" or null: none, when nullable.
 */
export function dateTime(timeZone: string, opts: { required?: boolean; nullable?: boolean } = {}): Field<string | null> {
  return {
    schema: opts.nullable
      ? Type.Union([Type.String({ examples: ['2026-12-10 10:00:00'] }), Type.Null()])
      : Type.String({ examples: ['2026-12-10 10:00:00'] }),
    required: opts.required ?? false,
    parse(value) {
      if (value === null || value === '') {
        if (opts.nullable) return null;
        throw new FieldError(value === null ? 'This field may not be null.' : DATE_FORMAT_MESSAGE);
      }
      const date = typeof value === 'string' ? readCampaignDate(value, timeZone) : DATE_FORMAT_MESSAGE;
      if (typeof date === 'string') throw new FieldError(date);
      return date.toISOString();
    },
  };
}

/** An e-mail address (DRF's EmailField message); "" or null: none. */
export function email(opts: { nullable?: boolean } = {}): Field<string | null> {
  return {
    schema: Type.Union([Type.String({ maxLength: 254, format: 'email' }), Type.Null()]),
    required: false,
    parse(value) {
      if (value === null || value === '') {
        if (opts.nullable) return null;
        if (value === '') return '';
        throw new FieldError('This field may not be null.');
      }
      if (typeof value !== 'string' || value.length > 254 || !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(value.trim())) {
        throw new FieldError('Enter a valid email address.');
      }
      return value.trim();
    },
  };
}
