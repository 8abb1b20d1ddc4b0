/**
 * The rules of the campaigns resources, voice and SMS alike (contract §2, §4, §5): a create (its
 * status, date defaults and order, a name unique per owner, a code, phonebooks, an immediate
 * start), an update (the same checks, phonebooks replaced and spooled while running, a status
 * change through the shared lifecycle) and a delete (refused while running). Each runs in the
 * transaction it is given; the routes only parse, call and answer.
 */
import { CampaignStatus } from '../../db/schema.ts';
import type { Db } from '../../db/database.ts';
import type { CampaignInsertOf, CampaignRowOf, CampaignTable } from '../../campaign/kinds.ts';
import { changeStatus, writeCampaign } from '../../campaign/lifecycle.ts';
import { linkPhonebooks, setLinkedPhonebooks } from '../../campaign/phonebook-links.ts';
import { spoolPhonebooks } from '../../campaign/spool.ts';
import type { AuthUser } from '../../http/auth.ts';
import { conflict, invalid, notFound } from '../../http/errors.ts';
import type { Parsed } from '../../http/fields.ts';
import { checkDateOrder } from './campaign.dates.ts';
import { deleteCampaign as deleteRow, findCampaign, insertCampaign, nameTaken, newCampaignCode } from './repository.ts';
import type { CampaignFieldsBase, CampaignResource } from './resource-kind.ts';
import { requestColumns, withDateDefaults } from './values.ts';

export type CampaignValues = Parsed<CampaignFieldsBase>;

const createdStatuses: readonly number[] = [CampaignStatus.New, CampaignStatus.Start, CampaignStatus.Pause];

const nameTakenError = (resource: CampaignResource) => invalid({ name: [`${resource.kind.aNoun} with this name already exists.`] });

/** The columns a request sets, typed as the kind's. */
const columnsOf = <T extends CampaignTable>(resource: CampaignResource<T>, values: CampaignValues) =>
  requestColumns(resource.columns, values) as Partial<CampaignInsertOf<T>>;

/** A kind's rules across fields (resource.check) on the record as it would be stored: 400 listing them. */
function checkRecord(resource: CampaignResource, record: Record<string, unknown>, changed?: string[]): void {
  const errors = resource.check?.(record, changed) ?? {};
  if (Object.keys(errors).length) throw invalid(errors);
}

/**
 * Creates a campaign of `caller` (or of the `user` named) with its phonebooks; created with
 * status 0 (NEW), 2 (PAUSE) or, started at once, 1 (START, with the checks of a start).
 */
export async function createCampaign<T extends CampaignTable>(
  tx: Db,
  resource: CampaignResource<T>,
  { values, caller, timeZone }: { values: CampaignValues; caller: AuthUser; timeZone: string },
): Promise<CampaignRowOf<T>> {
  const { kind } = resource;
  const status = values.status ?? resource.createdStatus;
  if (!createdStatuses.includes(status)) {
    throw invalid({ status: [`${kind.aNoun} is created with status 0 (NEW), 1 (START) or 2 (PAUSE).`] });
  }
  const columns = withDateDefaults(columnsOf(resource, values), new Date());
  checkDateOrder(columns);
  checkRecord(resource, columns);
  const userId = values.user ?? caller.id;
  if (await nameTaken(tx, kind, userId, values.name as string)) throw nameTakenError(resource);
  const created = await insertCampaign(tx, kind, {
    ...columns,
    name: values.name as string,
    user_id: userId,
    [resource.codeColumn]: await newCampaignCode(tx, resource),
    status: status === CampaignStatus.Start ? resource.createdStatus : status,
  } as unknown as CampaignInsertOf<T>);
  await linkPhonebooks(tx, kind, created.id, values.phonebook ?? []);
  if (status !== CampaignStatus.Start) return created;
  return changeStatus(tx, kind, created, CampaignStatus.Start, timeZone);
}

/**
 * Updates the campaign `id` visible to `caller` (PATCH and PUT, both partial): its columns, its
 * phonebooks (a phonebook added to a running campaign joins it, contract §5), then its status.
 */
export async function updateCampaign<T extends CampaignTable>(
  tx: Db,
  resource: CampaignResource<T>,
  { id, values, caller, timeZone }: { id: number; values: CampaignValues; caller: AuthUser; timeZone: string },
): Promise<CampaignRowOf<T>> {
  const { kind } = resource;
  const current = await findCampaign(tx, kind, caller, id, { lock: true });
  if (!current) throw notFound();
  const columns = columnsOf(resource, values);
  checkDateOrder(columns, current); // a new start past the stored expiration, or the reverse
  checkRecord(resource, { ...current, ...columns }, Object.keys(columns));
  if (columns.name && (await nameTaken(tx, kind, columns.user_id ?? current.user_id, columns.name, id))) throw nameTakenError(resource);
  let campaign = Object.keys(columns).length ? await writeCampaign(tx, kind, id, columns) : current;
  if (values.phonebook !== undefined) {
    const added = await setLinkedPhonebooks(tx, kind, id, values.phonebook);
    if (campaign.status === CampaignStatus.Start) await spoolPhonebooks(tx, id, added, { target: kind.tables, timeZone });
  }
  if (values.status !== undefined && values.status !== null) campaign = await changeStatus(tx, kind, campaign, values.status, timeZone);
  return campaign;
}

/** Deletes the campaign `id` visible to `caller`; 409 while it runs. */
export async function deleteCampaign(db: Db, resource: CampaignResource, { id, caller }: { id: number; caller: AuthUser }): Promise<void> {
  const { kind } = resource;
  const row = await findCampaign(db, kind, caller, id);
  if (!row) throw notFound();
  if (row.status === CampaignStatus.Start) throw conflict(`A running ${kind.noun} cannot be deleted; pause, end or abort it first.`);
  await deleteRow(db, kind, id);
}
