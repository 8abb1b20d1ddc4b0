/**
 * Campaign life (contract §5): one function per status transition, each writing the state
 * change and the work it causes in the transaction it is given (start spools the subscribers
 * and freezes the survey; abort marks pending subscribers ABORT).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { campaignPhonebooks, CampaignStatus, gateways, subscribers, SubscriberStatus } from '../../db/schema.ts';
import { spoolCampaign, type SpoolOptions } from '../../campaign/spool.ts';
import { invalid } from '../../http/errors.ts';
import { flowProblems, loadFlow } from '../../campaign/survey-flow.ts';
import { type CampaignRow, updateCampaign } from './campaign.repository.ts';
import { transitionProblem } from './campaign.state.ts';

const refuse = (why: string) => invalid({ status: [why] });

/** Why the campaign cannot start now (contract §5, §8), or undefined when it can. */
async function startProblem(db: Db, campaign: CampaignRow): Promise<string | undefined> {
  const books = await db.$count(campaignPhonebooks, eq(campaignPhonebooks.campaign_id, campaign.id));
  if (books === 0) return 'The campaign cannot start: it has no phonebook.';
  if (campaign.survey_id === null) return 'The campaign cannot start: it has no survey template (object_id).';
  if (!campaign.has_been_started) {
    const flow = await loadFlow(db, campaign.survey_id);
    if (!flow) return 'The campaign cannot start: its survey template does not exist.';
    const problems = flowProblems(flow);
    if (problems.length) return `The campaign cannot start: ${problems.join(' ')}`;
  }
  if (campaign.aleg_gateway_id === null) return 'The campaign cannot start: it has no gateway (aleg_gateway).';
  const [gateway] = await db.select({ status: gateways.status }).from(gateways).where(eq(gateways.id, campaign.aleg_gateway_id));
  if (!gateway || gateway.status !== 1) return 'The campaign cannot start: its gateway is inactive.';
  return undefined;
}

/**
 * START (from NEW, or from PAUSE): checks it can start; the first start freezes the survey
 * and spools the subscribers. Throws 400 {"status": [why]} and changes nothing when it cannot.
 */
export async function startCampaign(db: Db, campaign: CampaignRow, options: SpoolOptions): Promise<CampaignRow> {
  const problem = await startProblem(db, campaign);
  if (problem) throw refuse(problem);
  if (campaign.has_been_started) return updateCampaign(db, campaign.id, { status: CampaignStatus.Start, engine_state: null });
  const flow = await loadFlow(db, campaign.survey_id as number);
  await spoolCampaign(db, campaign.id, options);
  return updateCampaign(db, campaign.id, {
    status: CampaignStatus.Start,
    survey_snapshot: flow,
    has_been_started: true,
    started_date: sql`now()` as never,
    engine_state: null,
  });
}

/** PAUSE: no new calls; calls in progress finish (the engine sees the status). */
export function pauseCampaign(db: Db, campaign: CampaignRow): Promise<CampaignRow> {
  return updateCampaign(db, campaign.id, { status: CampaignStatus.Pause });
}

/** ABORT: final; pending subscribers become ABORT (calls in progress are hung up by the engine). */
export async function abortCampaign(db: Db, campaign: CampaignRow): Promise<CampaignRow> {
  await db
    .update(subscribers)
    .set({ status: SubscriberStatus.Abort, reason: 'campaign aborted', updated_date: sql`now()` })
    .where(
      and(
        eq(subscribers.campaign_id, campaign.id),
        inArray(subscribers.status, [SubscriberStatus.Pending, SubscriberStatus.Pause]),
      ),
    );
  return updateCampaign(db, campaign.id, { status: CampaignStatus.Abort, ended_date: sql`now()` as never });
}

/** END: final; no new calls (the engine closes calls in flight). */
export function endCampaign(db: Db, campaign: CampaignRow): Promise<CampaignRow> {
  return updateCampaign(db, campaign.id, { status: CampaignStatus.End, ended_date: sql`now()` as never });
}

/** Applies a PATCH `status`: a legal transition, or 400 naming both states (contract §5). */
export async function changeStatus(db: Db, campaign: CampaignRow, to: number, options: SpoolOptions): Promise<CampaignRow> {
  if (to === campaign.status) return campaign;
  const problem = transitionProblem(campaign.status, to);
  if (problem) throw refuse(problem);
  switch (to) {
    case CampaignStatus.Start:
      return startCampaign(db, campaign, options);
    case CampaignStatus.Pause:
      return pauseCampaign(db, campaign);
    case CampaignStatus.Abort:
      return abortCampaign(db, campaign);
    default:
      return endCampaign(db, campaign);
  }
}
