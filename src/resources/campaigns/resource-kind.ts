/**
 * What the campaigns API needs of a kind of campaign beyond its rules (src/campaign/kinds.ts): its
 * URL, request fields and how they become columns, its record, what it shows of its own, how it
 * counts its calls or messages, and how its delete answers. voice.ts and sms.ts each export one;
 * the routes, service, repository and presenter of this folder are written once against it.
 */
import type { TObject } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import type { CampaignKind, CampaignRowOf, CampaignTable } from '../../campaign/kinds.ts';
import type { FieldErrors } from '../../http/errors.ts';
import type { Field, Fields } from '../../http/fields.ts';
import type { linker } from '../../http/links.ts';
import type { ColumnMap } from './values.ts';

/** The request fields every kind has that the service reads itself. */
export type CampaignFieldsBase = Fields & {
  name: Field<string | null>;
  phonebook: Field<number[]>;
  user: Field<number | null>;
  status: Field<number | null>;
};

export type Linker = ReturnType<typeof linker>;

export interface CampaignResource<T extends CampaignTable = CampaignTable> {
  readonly kind: CampaignKind<T>;
  /** The path segment (/rest-api/<path>/), its records' link name and OpenAPI tag. */
  readonly path: 'campaigns' | 'sms-campaigns';
  /** The column (and record field) of its random code. */
  readonly codeColumn: 'campaign_code' | 'sms_campaign_code';
  /** The status a create without one gives (contract §4, §5). */
  readonly createdStatus: number;
  /** The request fields; `timeZone` reads dates without offset (contract §1). */
  fields(timeZone: string): CampaignFieldsBase;
  readonly columns: ColumnMap;
  /** The record (response schema). */
  readonly record: TObject;
  /** The record fields of this kind's own (links, its code, what only it has). */
  presentOwn(row: CampaignRowOf<T>, link: Linker): Record<string, unknown>;
  /** The `progress` fields beyond the subscribers' counts, for each campaign id (all present). */
  activityOf(db: Db, ids: number[]): Promise<Map<number, Record<string, unknown>>>;
  /**
   * Rules across fields, on the record as it would be stored (create: the columns' defaults
   * filled in); `changed`: the columns an update sets (absent on create). {} when none is broken.
   */
  check?(record: Readonly<Record<string, unknown>>, changed?: readonly string[]): FieldErrors;
  /** What a successful delete answers. */
  readonly deleted: { code: 200 | 204; body?: unknown };
}
