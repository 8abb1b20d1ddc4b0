/**
 * SMS gateway rules beyond CRUD, shared by the API and the CLI: the driver must be known, the
 * settings must suit it (contract §7), names are unique, secrets are write-only, and each
 * gateway gets a random secret for its callback URLs.
 */
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { DEFAULT_SMS_DRIVER, smsDriverNames, validateSmsDriverSettings } from '../../drivers/sms/index.ts';
import { type FieldErrors, invalid } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import { restoreSecrets } from '../gateway/gateway.secrets.ts';
import { findSmsGatewayByName, insertSmsGateway, type SmsGatewayRow, type SmsGatewayValues, updateSmsGateway } from './sms-gateway.repository.ts';
import type { smsGatewayFields } from './sms-gateway.schema.ts';

export type SmsGatewayInput = Parsed<typeof smsGatewayFields>;

/** A new callback secret: 32 random bytes, URL-safe. */
export function newCallbackSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

function checkDriver(driver: string, settings: unknown, errors: FieldErrors): void {
  if (!smsDriverNames.includes(driver)) {
    errors.driver = [`"${driver}" is not a valid choice. Known drivers: ${smsDriverNames.join(', ')}.`];
    return;
  }
  const problems = validateSmsDriverSettings(driver, settings);
  if (problems.length) errors.settings = problems;
}

async function checkName(db: Db, name: string | null | undefined, self: number | null, errors: FieldErrors): Promise<void> {
  if (!name) return;
  const other = await findSmsGatewayByName(db, name);
  if (other && other.id !== self) errors.name = ['sms gateway with this name already exists.'];
}

function columnsOf(input: SmsGatewayInput): Partial<SmsGatewayValues> {
  return {
    name: input.name ?? undefined,
    status: input.status ?? undefined,
    description: input.description ?? undefined,
    driver: input.driver ?? undefined,
    settings: input.settings ?? undefined,
  };
}

/** Creates an SMS gateway; throws a 400 listing every problem. */
export async function createSmsGateway(db: Db, input: SmsGatewayInput): Promise<SmsGatewayRow> {
  const errors: FieldErrors = {};
  const driver = input.driver ?? DEFAULT_SMS_DRIVER;
  checkDriver(driver, input.settings ?? {}, errors);
  await checkName(db, input.name, null, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  return insertSmsGateway(db, { ...columnsOf(input), name: input.name as string, driver, callback_secret: newCallbackSecret() });
}

/**
 * Changes the fields given. New settings replace the old ones, except secrets sent back masked;
 * a new driver is checked against the settings it will run with.
 */
export async function changeSmsGateway(db: Db, row: SmsGatewayRow, input: SmsGatewayInput): Promise<void> {
  const errors: FieldErrors = {};
  const settings = input.settings ? (restoreSecrets(input.settings, row.settings) as Record<string, unknown>) : undefined;
  if (input.driver || settings) checkDriver(input.driver ?? row.driver, settings ?? row.settings, errors);
  await checkName(db, input.name, row.id, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  await updateSmsGateway(db, row.id, { ...columnsOf(input), settings });
}
