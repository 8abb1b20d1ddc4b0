/**
 * Gateway rules beyond CRUD, shared by the API and the CLI: the driver must be known, the
 * settings must suit it (contract §7), names are unique, and secrets are write-only.
 */
import type { Db } from '../../db/database.ts';
import { DEFAULT_DRIVER, driverNames, validateDriverSettings } from '../../drivers/voice/index.ts';
import { type FieldErrors, invalid } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import { findGatewayByName, type GatewayRow, type GatewayValues, insertGateway, updateGateway } from './gateway.repository.ts';
import type { gatewayFields } from './gateway.schema.ts';
import { restoreSecrets } from './gateway.secrets.ts';

export type GatewayInput = Parsed<typeof gatewayFields>;

/** Adds the driver's and the settings' problems to `errors`. */
function checkDriver(driver: string, settings: unknown, errors: FieldErrors): void {
  if (!driverNames.includes(driver)) {
    errors.driver = [`"${driver}" is not a valid choice. Known drivers: ${driverNames.join(', ')}.`];
    return;
  }
  const problems = validateDriverSettings(driver, settings);
  if (problems.length) errors.settings = problems;
}

async function checkName(db: Db, name: string | null | undefined, self: number | null, errors: FieldErrors): Promise<void> {
  if (!name) return;
  const other = await findGatewayByName(db, name);
  if (other && other.id !== self) errors.name = ['gateway with this name already exists.'];
}

/** The columns that an input sets (undefined: unchanged). */
function columnsOf(input: GatewayInput): Partial<GatewayValues> {
  return {
    name: input.name ?? undefined,
    status: input.status ?? undefined,
    description: input.description ?? undefined,
    driver: input.driver ?? undefined,
    gateways: input.gateways ?? undefined,
    addprefix: input.addprefix ?? undefined,
    removeprefix: input.removeprefix ?? undefined,
    originate_dial_string: input.originate_dial_string ?? undefined,
    maximum_call: input.maximum_call,
    settings: input.settings ?? undefined,
  };
}

/** Creates a gateway; throws a 400 listing every problem. */
export async function createGateway(db: Db, input: GatewayInput): Promise<GatewayRow> {
  const errors: FieldErrors = {};
  const driver = input.driver ?? DEFAULT_DRIVER;
  checkDriver(driver, input.settings ?? {}, errors);
  await checkName(db, input.name, null, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  return insertGateway(db, { ...columnsOf(input), name: input.name as string, driver });
}

/**
 * Changes the fields given. New settings replace the old ones, except secrets sent back masked;
 * a new driver is checked against the settings it will run with.
 */
export async function changeGateway(db: Db, row: GatewayRow, input: GatewayInput): Promise<void> {
  const errors: FieldErrors = {};
  const settings = input.settings ? (restoreSecrets(input.settings, row.settings) as Record<string, unknown>) : undefined;
  if (input.driver || settings) checkDriver(input.driver ?? row.driver, settings ?? row.settings, errors);
  await checkName(db, input.name, row.id, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  await updateGateway(db, row.id, { ...columnsOf(input), settings });
}
