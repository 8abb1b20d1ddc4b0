/**
 * The SMS engine (issue 6), run by the engine's one loop (engine.ts calls `runOnce` each pass,
 * `recover` with its crash recovery, `settle` on stop). Each pass: contacts trickled into the
 * phonebooks of running SMS campaigns join them, campaigns past their expiration (or done, with
 * end_when_done) END, ABORT marks pending subscribers ABORT; then each START campaign gets a
 * send run: claim a batch (claim.ts, committed 'unsent'), hand it to the gateway's driver,
 * record the answers in one transaction (record.ts), and claim again while batches come full
 * (no pace limit) within a short time budget. One run per campaign at a time, so memory stays
 * bounded by one batch per campaign.
 */
import type { EngineContext } from '../context.ts';
import { smsSpool, spoolNewContacts } from '../../campaign/spool.ts';
import { CampaignReport, smsKind } from '../report.ts';
import { type DeadEngines, recoverLostSmsClaims, recoverSmsOrphans } from '../recover.ts';
import { smsKind as smsCampaigns } from '../../campaign/kinds.ts';
import { endDueCampaigns, startCampaignIds } from '../store/campaigns.ts';
import { stillClaimed } from '../store/sms-messages.ts';
import { type Gate, silenceGate } from '../silence-gate.ts';
import { abortPendingSmsSubscribers } from '../store/sms-subscribers.ts';
import { claimMessages, maxPerBatch, type SmsClaim } from './claim.ts';
import { recordResults, type SendResult } from './record.ts';
import { databaseUnreachable, rootMessage, untilReached } from '../../db/unreachable.ts';

/** Messages handed to a driver at once within a batch. */
const sendConcurrency = 100;
/** A campaign's run claims again while batches come full, for at most this long (then the next pass). */
const runBudgetMs = 2000;

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order of the answers. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class SmsEngine {
  private readonly runs = new Map<number, Promise<void>>();
  /** The messages this engine claimed and has not recorded (a record that failed leaves them here, for the next start's recovery). */
  private readonly claimed = new Set<number>();
  private readonly report: CampaignReport;
  /**
   * Whether the message `id`, claimed by this engine, may still go out (silence-gate.ts). After a
   * silence of its own (this process stalled, or the database out of reach, while the message
   * waited its turn here or in the driver), only if no other engine settled it meanwhile (as
   * failed ENGINE_RESTART, to be sent again as a new message): else it would be sent twice.
   */
  private readonly maySend: Gate;

  constructor(
    private readonly ctx: EngineContext,
    private readonly stopping: () => boolean,
    /** The engine's heartbeat (engine.ts): whether it is fresh, and a check made once one has gone through after a silence. */
    heartbeat: { fresh: () => boolean; afterSilence: (check: () => Promise<number[]>, none: number[]) => Promise<number[]> },
  ) {
    this.report = new CampaignReport(ctx, smsKind);
    this.maySend = silenceGate(heartbeat.fresh, async (ids) => {
      const claimed = new Set(await heartbeat.afterSilence(() => stillClaimed(ctx.db, ids, ctx.engineId), []));
      for (const id of ids) if (!claimed.has(id)) ctx.log.warn(`sms message ${id} was settled by another engine while this one was silent; not sent`);
      return claimed;
    });
  }

  /** Campaigns with a send run in progress. */
  get inFlight(): number {
    return this.runs.size;
  }

  /** One pass; returns how many messages the pass claimed (its first batches). Idle without SMS drivers. */
  async runOnce(): Promise<number> {
    const { db } = this.ctx;
    if (!this.ctx.smsDrivers) return 0;
    await this.report.begin();
    await spoolNewContacts(db, { target: smsSpool, timeZone: this.ctx.config.timeZone });
    await this.endCampaigns();
    await this.applyAbort();
    const live = await startCampaignIds(db, smsCampaigns);
    let claimed = 0;
    for (const { id } of live) {
      if (this.stopping()) break;
      if (this.runs.has(id)) continue;
      const first = await this.claim(id);
      if (first.campaign) this.report.started(first.campaign);
      if (!first.messages.length) continue;
      claimed += first.messages.length;
      const run = this.run(id, first)
        .catch((err: Error) => this.ctx.log.error(`sms campaign ${id}: ${err.message}`))
        .finally(() => this.runs.delete(id));
      this.runs.set(id, run);
    }
    await this.report.live(live.map((c) => c.id));
    return claimed;
  }

  /** Sends `first`, then claims and sends again while batches come full, the budget lasts and the engine runs. */
  private async run(campaignId: number, first: SmsClaim): Promise<void> {
    const until = performance.now() + runBudgetMs;
    for (let batch = first; ; ) {
      await this.send(batch);
      if (batch.messages.length < maxPerBatch || this.stopping() || performance.now() > until) return;
      batch = await this.claim(campaignId);
      if (!batch.messages.length) return;
    }
  }

  /** Claims a batch of the campaign's messages (claim.ts), known from its answer on as this engine's. */
  private async claim(campaignId: number): Promise<SmsClaim> {
    const batch = await claimMessages(this.ctx, campaignId);
    for (const m of batch.messages) this.claimed.add(m.messageId);
    return batch;
  }

  /** Hands a batch to the gateway's driver and records every answer in one transaction. */
  private async send({ campaign, gateway, messages }: SmsClaim): Promise<void> {
    if (!campaign || !gateway || !this.ctx.smsDrivers) return;
    const driver = this.ctx.smsDrivers(gateway);
    const results = await mapLimit(messages, sendConcurrency, async (m): Promise<SendResult | undefined> => {
      const maySend = () => this.maySend(m.messageId);
      try {
        const may = maySend();
        if (may !== true && !(await may)) return undefined; // settled by another engine: nothing to record
        return { messageId: m.messageId, ...(await driver.send({ messageId: m.messageId, to: m.to, from: campaign.callerid, text: m.text, maySend })) };
      } catch (err) {
        // A driver should answer ok: false; a throw is taken as a temporary failure.
        return { messageId: m.messageId, ok: false, error: (err as Error).message.slice(0, 200), retry: true };
      }
    });
    await this.record(results.filter((r) => r !== undefined));
    for (const m of messages) this.claimed.delete(m.messageId);
  }

  /**
   * Records the answers. While the database is out of reach (PostgreSQL restarted, the network to
   * it down) it tries again until the database answers, unless the engine is stopping: the
   * messages went to the gateway, and left 'unsent' they would be settled as failed ENGINE_RESTART
   * by a recovery and sent again. A message is recorded once (settleMessages), so a write whose
   * commit went through before its answer was lost records nothing twice. Any other failure is
   * tried twice more (else a restart settles them).
   */
  private async record(results: SendResult[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await untilReached(() => recordResults(this.ctx.db, results, this.ctx.clock.now()), {
          giveUp: this.stopping,
          waiting: (err) => this.ctx.log.warn(`recording ${results.length} SMS result(s): the database is out of reach (${rootMessage(err)}); trying again until it answers`),
        });
        return;
      } catch (err) {
        if (attempt >= 3 || databaseUnreachable(err)) throw err;
        this.ctx.log.warn(`recording ${results.length} SMS result(s) failed (${(err as Error).message}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /** END: SMS campaigns past their expiration, and end_when_done ones with every subscriber final. */
  private async endCampaigns(): Promise<number> {
    const rows = await endDueCampaigns(this.ctx.db, smsCampaigns, this.ctx.clock.now().toISOString());
    await this.report.ended(rows.map((r) => r.id));
    return rows.length;
  }

  /** ABORT: pending subscribers of aborted SMS campaigns become ABORT. */
  private async applyAbort(): Promise<number> {
    return (await abortPendingSmsSubscribers(this.ctx.db)).length;
  }

  /** Settles the messages dead engines left 'unsent' (see ../recover.ts). */
  recover(opts: DeadEngines): Promise<number> {
    return recoverSmsOrphans(this.ctx, opts);
  }

  /**
   * Settles this engine's lost claims (../recover.ts recoverLostSmsClaims), only while no send run
   * is under way: the engine's loop calls it between passes, so no claim is then waiting for its
   * answer, and every message it claimed and learnt of is in `claimed` until recorded.
   */
  recoverLostClaims(): Promise<number> {
    if (this.runs.size) return Promise.resolve(0);
    return recoverLostSmsClaims(this.ctx, [...this.claimed]);
  }

  /** Resolves when every send run of this engine is recorded. */
  async settle(): Promise<void> {
    while (this.runs.size) await Promise.all([...this.runs.values()]);
  }
}
