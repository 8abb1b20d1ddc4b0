/**
 * Gateway rules beyond CRUD, for every kind, shared by the API and the CLI: the driver must be
 * in the kind's registry, the settings must suit it (contract §7), names are unique, and
 * secrets are write-only.
 */
import type { Db } from '../../db/database.ts';
import { type FieldErrors, invalid } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import type { GatewayKind, GatewayTable, RowOf, ValuesOf } from './gateway-kind.ts';
import { findRowByName, insertRow, updateRow } from './gateways.repository.ts';
import type { CommonGatewayFields } from './gateways.schema.ts';
import { restoreSecrets } from './gateways.secrets.ts';

type Kind<T extends GatewayTable> = GatewayKind<T, CommonGatewayFields>;
export type GatewayInput = Parsed<CommonGatewayFields>;

/** Adds the driver's and the settings' problems to `errors`. */
function checkDriver(kind: GatewayKind, driver: string, settings: unknown, errors: FieldErrors): void {
  const { names, validate } = kind.drivers;
  if (!names.includes(driver)) {
    errors.driver = [`"${driver}" is not a valid choice. Known drivers: ${names.join(', ')}.`];
    return;
  }
  const problems = validate(driver, settings);
  if (problems.length) errors.settings = problems;
}

async function checkName(kind: GatewayKind, db: Db, name: string | null | undefined, self: number | null, errors: FieldErrors): Promise<void> {
  if (!name) return;
  const other = await findRowByName(kind.table, db, name);
  if (other && other.id !== self) errors.name = [`${kind.words.label} with this name already exists.`];
}

/** The columns that an input sets (undefined: unchanged). */
function columnsOf<T extends GatewayTable>(kind: Kind<T>, input: GatewayInput): Partial<ValuesOf<T>> {
  return {
    name: input.name ?? undefined,
    status: input.status ?? undefined,
    description: input.description ?? undefined,
    driver: input.driver ?? undefined,
    ...kind.ownColumns?.(input),
    settings: input.settings ?? undefined,
  } as Partial<ValuesOf<T>>;
}

/** Creates a gateway of this kind; throws a 400 listing every problem. */
export async function createGateway<T extends GatewayTable>(kind: Kind<T>, db: Db, input: GatewayInput): Promise<RowOf<T>> {
  const errors: FieldErrors = {};
  const driver = input.driver ?? kind.drivers.fallback;
  checkDriver(kind, driver, input.settings ?? {}, errors);
  await checkName(kind, db, input.name, null, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  return insertRow(kind.table, db, { ...columnsOf(kind, input), name: input.name as string, driver, ...kind.createdColumns?.() } as ValuesOf<T>);
}

/**
 * Changes the fields given. New settings replace the old ones, except secrets sent back masked;
 * a new driver is checked against the settings it will run with.
 */
export async function changeGateway<T extends GatewayTable>(kind: Kind<T>, db: Db, row: RowOf<T>, input: GatewayInput): Promise<void> {
  const errors: FieldErrors = {};
  const settings = input.settings ? (restoreSecrets(input.settings, row.settings) as Record<string, unknown>) : undefined;
  if (input.driver || settings) checkDriver(kind, input.driver ?? row.driver, settings ?? row.settings, errors);
  await checkName(kind, db, input.name, row.id, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  await updateRow(kind.table, db, row.id, { ...columnsOf(kind, input), settings } as Partial<ValuesOf<T>>);
}
