/**
 * What the engine tells its operator (issue 11): a line when a campaign starts (with the
 * subscribers spooled), a progress line per campaign each minute while it dials or when its
 * state changed (calls, answered, failed, spend, and `engine_state`, which a campaign read shows
 * as `dialing_state`: why it waits), and a line when it ends and why.
 *
 * Kept cheap, because the engine records thousands of calls a second: nothing here runs per
 * call. The start line comes from the claim the engine makes anyway; the progress line is one
 * set-based query a minute, reading only the CDRs (or SMS messages) written since the last one
 * through their primary key (a row committed out of id order at the boundary may be missed: these
 * are log lines, not the accounts); the end line is one query per campaign that stops.
 * With several engines sharing a PostgreSQL database each engine logs the progress it sees,
 * and each logs a stop made through the API.
 */
import { CampaignStatus } from '../db/schema.ts';
import type { EngineContext } from './context.ts';
import { type ActivityKind, activityTop, campaignStates, campaignTotals, progressSince } from './store/progress.ts';

/** Progress lines come at most this often (per campaign: only with activity or a new state). */
export const progressEveryMs = 60_000;

/** A campaign row as the claim read it, before the claim noted its state. */
export interface StartedRow {
  id: number;
  name: string;
  totalcontact: number;
  engine_state: string | null;
  started_date: string | null;
  updated_date: string;
}

interface Kind {
  /** 'campaign' or 'sms campaign', as the lines name it. */
  noun: string;
  /** Whose activity the store reads (store/progress.ts): CDRs or SMS messages. */
  activity: ActivityKind;
  /** What one unit is called in the lines: calls or messages. */
  words: { done: string; good: string; bad: string };
}

export const voiceKind: Kind = {
  noun: 'campaign',
  activity: 'voice',
  words: { done: 'calls', good: 'answered', bad: 'failed' },
};

export const smsKind: Kind = {
  noun: 'sms campaign',
  activity: 'sms',
  words: { done: 'messages sent', good: 'delivered', bad: 'failed' },
};

/** Why an engine's END happened, from the engine_state it wrote (store/campaigns.ts, store/sms-campaigns.ts). */
const endReasons: Record<string, string> = {
  'finished (expired)': 'expired',
  'finished (every subscriber done)': 'done (end_when_done: every subscriber final)',
};

const money = (s: string) => Number(s).toFixed(2);

/** The lines of one kind of campaign (voice or SMS) for one engine. */
export class CampaignReport {
  /** START campaigns seen by the last pass: one leaving is a stop to tell. */
  private watching = new Set<number>();
  private lastProgress?: number;
  private watermark?: number;
  /** The state each campaign's last progress line showed. */
  private shown = new Map<number, string>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly kind: Kind,
  ) {}

  private line(id: number, name: string, text: string): void {
    this.ctx.log.info(`${this.kind.noun} ${id} "${name}" ${text}`);
  }

  /**
   * A claim read the campaign with no engine_state: the API has just started (or resumed) it and
   * this engine is the first to dial it (the claim holds the row lock: once across engines).
   * A first start writes started_date and updated_date in one transaction, so they are equal.
   */
  started(c: StartedRow): void {
    if (c.engine_state !== null) return;
    const verb = c.started_date === c.updated_date ? 'started' : 'resumed';
    this.line(c.id, c.name, `${verb}: ${c.totalcontact} subscribers spooled`);
  }

  /** Campaigns this engine ended (`engine_state` says why); `ids` are the rows its END returned. */
  async ended(ids: number[]): Promise<void> {
    if (!ids.length) return;
    for (const id of ids) this.watching.delete(id);
    await this.tellStops(ids);
  }

  /** Before the first pass: progress counts what is written from now on. */
  async begin(): Promise<void> {
    if (this.watermark !== undefined) return;
    this.watermark = await activityTop(this.ctx.db, this.kind.activity);
    this.lastProgress = this.ctx.clock.now().getTime();
  }

  /** After a pass: START campaigns now; those gone since the last pass were stopped elsewhere. */
  async live(ids: number[]): Promise<void> {
    const now = new Set(ids);
    const gone = [...this.watching].filter((id) => !now.has(id));
    this.watching = now;
    if (gone.length) await this.tellStops(gone);
    await this.progress();
  }

  /** One line per campaign that left START: why, and its totals. */
  private async tellStops(ids: number[]): Promise<void> {
    const rows = await campaignStates(this.ctx.db, this.kind.activity, ids);
    const totals = await campaignTotals(this.ctx.db, this.kind.activity, ids);
    const byId = new Map(totals.map((t) => [Number(t.cid), t]));
    const w = this.kind.words;
    for (const r of rows) {
      this.shown.delete(r.id);
      const why =
        r.status === CampaignStatus.Pause ? 'paused (by user)'
        : r.status === CampaignStatus.Abort ? 'ended: aborted (by user)'
        : r.status === CampaignStatus.End ? `ended: ${endReasons[r.engine_state ?? ''] ?? 'by user'}`
        : r.status === CampaignStatus.Start ? undefined
        : 'stopped';
      if (!why) continue;
      const t = byId.get(r.id);
      this.line(r.id, r.name, `${why}; in all ${t?.done ?? 0} ${w.done}, ${t?.good ?? 0} ${w.good}, ${t?.bad ?? 0} ${w.bad}, spend ${money(t?.spend ?? '0')}`);
    }
    const found = new Set(rows.map((r) => r.id));
    for (const id of ids) if (!found.has(id)) this.ctx.log.info(`${this.kind.noun} ${id} stopped: deleted`);
  }

  /**
   * Once a minute: a line for each START campaign that had activity since the last line or
   * whose state changed (a campaign waiting all night says so once, not every minute).
   */
  private async progress(): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    if (this.watermark === undefined || now - (this.lastProgress ?? now) < progressEveryMs) return;
    this.lastProgress = now;
    const rows = await progressSince(this.ctx.db, this.kind.activity, this.watermark);
    this.watermark = Number(rows[0]?.top ?? this.watermark);
    const w = this.kind.words;
    for (const r of rows) {
      if (r.id === null) continue;
      const state = r.engine_state ?? 'starting';
      if (Number(r.done) === 0 && this.shown.get(r.id) === state) continue;
      this.shown.set(r.id, state);
      this.line(r.id, r.name, `last minute: ${r.done} ${w.done}, ${r.good} ${w.good}, ${r.bad} ${w.bad}, spend ${money(r.spend)}; state: ${state}`);
    }
  }
}
