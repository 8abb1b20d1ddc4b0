/**
 * The engine's one loop (house style): it owns polling, pacing and shutdown. Each pass
 * (`runOnce`) ends the campaigns whose time is up, applies ABORT, spools trickled contacts, and
 * for each START campaign claims due subscribers and starts their calls (dialer.ts). Calls run
 * as tasks (call.ts) that record their own outcome. A pass cut short by the claim cap is
 * followed at once by passes that only claim, for the same campaigns, until a poll's time has
 * gone since the last whole pass. `stop()` stops claiming, waits for the calls in flight
 * (hanging them up after a grace period) and resolves once every one is recorded.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { dial } from './call.ts';
import type { EngineContext } from './context.ts';
import { claimCalls } from './dialer.ts';
import { type Call, Q850 } from '../drivers/voice/driver.ts';
import { type CallOutcome, OutcomeWriter } from './outcome.ts';
import { pruneRecordings } from './recordings.ts';
import { beat, recoverLostLoneSms, recoverLostClaims, recoverOrphans } from './recover.ts';
import { CampaignReport, voiceKind } from './report.ts';
import { spoolNewContacts } from '../campaign/spool.ts';
import { releaseHeldSubscribers } from '../campaign/contact-waits.ts';
import { SmsEngine } from './sms/engine.ts';
import { runAlarms } from './alarms/alarms.ts';
import { abortedCampaignIds, endDueCampaigns, startCampaignIds } from './store/campaigns.ts';
import { voiceKind as voiceCampaigns } from '../campaign/kinds.ts';
import { closedCalls } from './store/callrequests.ts';
import { forgetEngine } from './store/heartbeats.ts';
import { type Gate, silenceGate } from './silence-gate.ts';
import { abortPendingSubscribers } from './store/subscribers.ts';
import { OutageNotice } from '../db/unreachable.ts';

export interface EngineOptions extends Omit<EngineContext, 'engineId'> {
  engineId?: string;
  /** 'pglite': one process per database, so any other engine's CALLING calls are dead. */
  databaseKind: 'pglite' | 'postgres';
  pollMs?: number;
  /** PostgreSQL: an engine silent this long is dead (its calls are recovered); 15 s (ENGINE_STALE_SECONDS). */
  staleMs?: number;
  /** stop(): calls still up after this long are hung up (and recorded). */
  stopGraceMs?: number;
  /** At most this many calls in flight (dialling, or waiting for their outcome to be written); 5000. */
  maxInFlight?: number;
}

export interface PassResult {
  started: number;
  ended: number;
  aborted: number;
  joined: number;
  /** SMS messages claimed by the pass (sms/engine.ts). */
  messages: number;
}

/** How often the fence looks at the heartbeat (Engine.fenceTick), and how long before staleMs it hangs up. */
const fenceTickMs = 500;
const fenceMarginMs = 2000;

interface InFlight {
  campaignId: number;
  /** The call while it is up. */
  call?: Call;
  /** Hung up by the fence (fenceTick): its outcome says so (outcome.ts fencedCause). */
  fenced?: boolean;
  task: Promise<void>;
}

export class Engine {
  readonly ctx: EngineContext;
  private readonly options: EngineOptions;
  private readonly inFlight = new Map<number, InFlight>();
  /** Calls placed whose outcome could not be written (a write refused, not an outage): left CALLING for the next start's recovery, never taken for lost claims. */
  private readonly unrecorded = new Set<number>();
  private running?: Promise<void>;
  private stopping = false;
  private wakeUp?: () => void;
  private lastRecovery = 0;
  /** The last pass stopped at a claim cap with calls still due: the next one runs at once. */
  private more = false;
  /** The START campaigns the last whole pass found: the ones a claiming pass claims for. */
  private live: number[] = [];
  /** When the last whole pass began (performance.now()). */
  private lastWholePass = -Infinity;
  /** When this engine's heartbeat last went through: by its clock, and in real time (performance.now()). */
  private lastBeat = -Infinity;
  private lastBeatReal = -Infinity;
  /** When the last heartbeat that went through was sent (performance.now()): its row's time is no earlier, by the database's clock. */
  private lastBeatSent = -Infinity;
  /** PostgreSQL: the fence's watch (fenceTick), its last tick, and the heartbeat it waits for after a stall. */
  private fenceTimer?: NodeJS.Timeout;
  private lastFenceTick = 0;
  private fenceHeld = false;
  /** PostgreSQL: until then (performance.now()) this engine takes no other for dead; see beatNow(). */
  private holdRecoveryUntil = -Infinity;
  /** For the driver, just before a call goes out (OriginateRequest.mayDial): whether it is still this engine's to place. */
  private readonly mayDial: Gate = silenceGate(
    () => this.beatFresh(),
    (ids) => this.stillOurs(ids),
  );
  /** The heartbeat being written, which every caller of beatNow() meanwhile waits for. */
  private beating?: Promise<void>;
  /** When recordings were last pruned by their owners' retention (recordings.ts), by the engine's clock. */
  private lastRecordingPrune = -Infinity;
  /** Passes that fail because the database is out of reach: said once, and once when it is back. */
  private readonly outage = new OutageNotice((m) => this.ctx.log.warn(m), { who: 'engine', waiting: 'calls up go on, passes wait for it', back: 'passes go on' });
  /** Subscribers held by contact caps or calling hours, released once at the first pass (contact-waits.ts). */
  private releasedHeld = false;
  private readonly writer: OutcomeWriter;
  /** The SMS campaigns' sending (sms/engine.ts): its runs count as in flight for settle() and stop(). */
  private readonly sms: SmsEngine;
  /** The campaigns' start, progress and end lines (report.ts). */
  private readonly report: CampaignReport;

  constructor(options: EngineOptions) {
    this.options = options;
    const engineId = options.engineId ?? `${os.hostname().slice(0, 30)}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    this.ctx = { db: options.db, log: options.log, clock: options.clock, drivers: options.drivers, config: options.config, engineId };
    this.writer = new OutcomeWriter(options.db, options.config.billingIncrement, { log: options.log, stopping: () => this.stopping });
    this.ctx.smsDrivers = options.smsDrivers;
    this.sms = new SmsEngine(this.ctx, () => this.stopping, { fresh: () => this.beatFresh(), afterSilence: (check, none) => this.afterSilence(check, none) });
    this.report = new CampaignReport(this.ctx, voiceKind);
  }

  private get maxInFlight(): number {
    return this.options.maxInFlight ?? 5000;
  }

  /** The sleep between passes, and the least time between two whole passes. */
  private get pollMs(): number {
    return this.options.pollMs ?? 200;
  }

  /** Calls this engine has in flight. */
  get callsInFlight(): number {
    return this.inFlight.size;
  }

  private get staleMs(): number {
    return this.options.staleMs ?? 15_000;
  }

  /**
   * Closes calls left in flight by dead engines (run at start, then every few seconds). Not while
   * this engine is just back from a silence of its own (beatNow()). First, this engine's own lost
   * claims (recover.ts recoverLostClaims): it runs between passes, so no claim is under way, and
   * every call it claimed and learnt of is in flight or unrecorded; and the SMS it sent from calls
   * no longer up, or as reminders, that are still unsent (recoverLostLoneSms).
   */
  async recover(): Promise<number> {
    this.lastRecovery = this.ctx.clock.now().getTime();
    await this.beatNow();
    const lost =
      (await recoverLostClaims(this.ctx, [...this.inFlight.keys(), ...this.unrecorded])) +
      (await recoverLostLoneSms(this.ctx, [...this.inFlight.keys()])) +
      (await this.sms.recoverLostClaims());
    if (performance.now() < this.holdRecoveryUntil) return lost;
    const dead = { anyOtherEngine: this.options.databaseKind === 'pglite', staleMs: this.staleMs };
    return lost + (await recoverOrphans(this.ctx, dead)) + (await this.sms.recover(dead));
  }

  /** Beats at most once a second (back-to-back passes would each commit one). */
  private async heartbeat(): Promise<void> {
    if (Math.abs(this.ctx.clock.now().getTime() - this.lastBeat) < 1000) return;
    await this.beatNow();
  }

  /**
   * Writes the heartbeat. On PostgreSQL, when the last one went through long ago (a third of
   * staleMs: the database out of reach, or this process stalled), this engine was silent too:
   * - for staleMs it takes no other engine for dead. The others were likely cut off the same
   *   way, and come back beating within that time; a dead one is recovered after it. Without
   *   this, the first engine back after a database outage would close the calls of every other
   *   and dial their subscribers again while those calls were still up;
   * - silent longer than staleMs, it may itself have been taken for dead, its calls closed as
   *   ENGINE_RESTART and retried: it hangs up those of its calls that are closed (their outcomes
   *   are not written, outcome.ts), so the person is not kept on a call nobody records.
   */
  private beatNow(): Promise<void> {
    this.beating ??= this.writeBeat().finally(() => (this.beating = undefined));
    return this.beating;
  }

  private async writeBeat(): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    const sent = performance.now();
    await beat(this.ctx);
    this.lastBeatSent = sent;
    // Silence is real time: a test's clock that leaps ahead is not a silence.
    const real = performance.now();
    const silent = real - this.lastBeatReal;
    this.lastBeat = now;
    this.lastBeatReal = real;
    if (this.options.databaseKind !== 'postgres' || !Number.isFinite(silent) || silent <= this.staleMs / 3) return;
    this.holdRecoveryUntil = real + this.staleMs;
    this.ctx.log.warn(`engine: no heartbeat for ${Math.round(silent / 1000)} s (the database out of reach, or this process stalled); it takes no other engine for dead for ${this.staleMs / 1000} s`);
    if (silent <= this.staleMs) return;
    const closed = await closedCalls(this.ctx.db, [...this.inFlight.keys()]);
    for (const id of closed) void this.inFlight.get(id)?.call?.hangup(Q850.NormalClearing).catch(() => undefined);
    if (closed.length) this.ctx.log.warn(`engine: ${closed.length} of its calls were closed by another engine's recovery meanwhile; hung up`);
  }

  /**
   * The fence (PostgreSQL), twice a second. Another engine takes this one for dead once its
   * heartbeat is staleMs old by the database's clock, then closes its calls and calls those people
   * again. So when no heartbeat has gone through for staleMs less fenceMarginMs (the database out
   * of reach of this engine alone: a partition), it hangs up its calls in flight, before anyone
   * can retry them: a person is never on two of the campaign's calls at once. Their outcomes,
   * written if nobody did take it for dead, give the cause ENGINE_FENCED and retry the
   * subscribers as that engine would have (outcome.ts fencedCause). Counted from when
   * that heartbeat was sent, which is no later than its time in the row. Meanwhile it keeps trying
   * to beat, so a long pass is no silence. A tick that comes late was a stall of this process
   * itself (SIGSTOP, a paused VM): nothing is hung up until the heartbeat it then writes is
   * answered, since that heartbeat finds which calls another engine closed (writeBeat) and hangs
   * up those alone.
   */
  private fenceTick(): void {
    const now = performance.now();
    const stalled = now - this.lastFenceTick > 3 * fenceTickMs;
    this.lastFenceTick = now;
    const silent = now - this.lastBeatSent;
    if (stalled) {
      // Stalls close together share one heartbeat (beatNow), so the first answer ends the hold.
      this.fenceHeld = true;
      void this.beatNow()
        .catch(() => undefined)
        .finally(() => (this.fenceHeld = false));
      return;
    }
    if (silent > this.staleMs / 3) void this.beatNow().catch(() => undefined);
    if (this.fenceHeld || silent < this.staleMs - fenceMarginMs) return;
    const calls = [...this.inFlight.values()].filter((f) => f.call && !f.fenced);
    for (const f of calls) {
      f.fenced = true;
      void f.call?.hangup(Q850.NormalClearing).catch(() => undefined);
    }
    if (calls.length) {
      this.ctx.log.warn(
        `engine: no heartbeat for ${Math.round(silent / 1000)} s: hung up its ${calls.length} call(s) in flight, before another engine may take it for dead (at ${this.staleMs / 1000} s) and call those people again`,
      );
    }
  }

  /**
   * Whether this engine's last heartbeat is recent enough (a third of staleMs) that no other
   * engine can have taken it for dead: its claimed calls are still its own to place.
   * Always so on PGlite (one process).
   */
  private beatFresh(): boolean {
    return this.options.databaseKind !== 'postgres' || performance.now() - this.lastBeatReal <= this.staleMs / 3;
  }

  /**
   * Which of the calls `ids`, claimed by this engine, it may still place after a silence of its
   * own (this process stalled, or the database out of reach, between the claim and the dial or
   * while a call waited in its driver's CPS queue): once a heartbeat has gone through again,
   * those no other engine closed meanwhile (ENGINE_RESTART, to be retried by that engine).
   * Without this, such a call was placed twice: by this engine late, and by the retry.
   */
  private async stillOurs(ids: number[]): Promise<Set<number>> {
    const closed = new Set(await this.afterSilence(() => closedCalls(this.ctx.db, ids), ids));
    if (closed.size) this.ctx.log.warn(`engine: call(s) ${[...closed].join(', ')} were closed by another engine while this one was silent; not placed`);
    return new Set(ids.filter((id) => !closed.has(id)));
  }

  /**
   * After a silence of this engine's own: `check` (which of its claimed calls or messages are
   * still its own) once a heartbeat has gone through again. While the database does not answer
   * it tries again; when the engine is stopping it gives up with `none` (nothing is sent, and
   * what was claimed stays this engine's, to be recovered once it is gone).
   */
  private async afterSilence<T>(check: () => Promise<T>, none: T): Promise<T> {
    for (let wait = 200; ; wait = Math.min(2 * wait, 5000)) {
      try {
        await this.beatNow();
        return await check();
      } catch (err) {
        if (this.stopping) return none;
        this.ctx.log.warn(`engine: back from a silence, the database does not answer yet (${(err as Error).message}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** One scheduling pass. */
  async runOnce(): Promise<PassResult> {
    const { db, clock } = this.ctx;
    await this.heartbeat();
    // The instance's caps and calling hours may have changed since the last run: look again at the held.
    if (!this.releasedHeld) {
      await releaseHeldSubscribers(db, clock.now().toISOString());
      this.releasedHeld = true;
    }
    await this.report.begin();
    if (clock.now().getTime() - this.lastRecovery > 10_000) await this.recover();
    const joined = await spoolNewContacts(db, { timeZone: this.ctx.config.timeZone });
    const ended = await this.endCampaigns();
    const aborted = await this.applyAbort();
    // Appointment reminders (alarms/): due call alarms become subscribers of their reminder campaign, dialled below.
    if (!this.stopping) await runAlarms(this.ctx, () => this.stopping);
    this.live = (await startCampaignIds(db, voiceCampaigns)).map((c) => c.id);
    const started = await this.claimAndDial(this.live);
    await this.report.live(this.live);
    await this.pruneRecordings();
    const messages = await this.sms.runOnce();
    return { started, ended, aborted, joined, messages };
  }

  /**
   * Claims the due subscribers of each of the campaigns and starts their calls; returns how many.
   * Sets `more` when a claim stopped at its cap with more due, or the engine is full.
   */
  private async claimAndDial(campaignIds: number[]): Promise<number> {
    let started = 0;
    this.more = false;
    for (const id of campaignIds) {
      if (this.stopping) break;
      const room = this.maxInFlight - this.inFlight.size;
      if (room <= 0) {
        this.more = true;
        break;
      }
      const { campaign, gateway, calls, more } = await claimCalls(this.ctx, id, { limit: room });
      if (more) this.more = true;
      if (campaign) this.report.started(campaign);
      if (!campaign || !gateway) continue;
      const ours = this.beatFresh() ? undefined : await this.stillOurs(calls.map((c) => c.callrequestId));
      for (const claimed of calls) {
        if (ours && !ours.has(claimed.callrequestId)) continue;
        const entry: InFlight = { campaignId: id, task: Promise.resolve() };
        this.inFlight.set(claimed.callrequestId, entry);
        const mayDial = () => this.mayDial(claimed.callrequestId);
        const track = (call: Call) => {
          entry.call = call;
          void call.ended.then(() => (entry.call = undefined));
        };
        const record = (o: CallOutcome) => this.writer.record(entry.fenced ? { ...o, fenced: true } : o);
        entry.task = dial(this.ctx, campaign, gateway, claimed, { track, record, mayDial, stopping: () => this.stopping })
          .catch((err: Error) => {
            this.unrecorded.add(claimed.callrequestId);
            this.ctx.log.error(`call ${claimed.callrequestId}: ${err.message}`);
          })
          .finally(() => {
            this.inFlight.delete(claimed.callrequestId);
            if (this.more && this.inFlight.size <= this.maxInFlight / 2) this.wake();
          });
        started++;
      }
    }
    return started;
  }

  /** Recording retention, at most once an hour (needs DATA_DIR, where the files are). */
  private async pruneRecordings(): Promise<void> {
    const { dataDir } = this.ctx.config;
    const now = this.ctx.clock.now();
    if (!dataDir || Math.abs(now.getTime() - this.lastRecordingPrune) < 3600_000) return;
    this.lastRecordingPrune = now.getTime();
    const n = await pruneRecordings(this.ctx.db, dataDir, now).catch((err: Error) => {
      this.ctx.log.warn(`recordings: retention failed: ${err.message}`);
      return 0;
    });
    if (n) this.ctx.log.info(`recordings: ${n} deleted by their owners' retention`);
  }

  /** END: campaigns past their expiration, and end_when_done ones with every subscriber final. */
  private async endCampaigns(): Promise<number> {
    const rows = await endDueCampaigns(this.ctx.db, voiceCampaigns, this.ctx.clock.now().toISOString());
    await this.report.ended(rows.map((r) => r.id));
    return rows.length;
  }

  /** ABORT: pending subscribers become ABORT; this engine hangs up its calls of aborted campaigns. */
  private async applyAbort(): Promise<number> {
    const rows = await abortPendingSubscribers(this.ctx.db);
    const ids = [...new Set([...this.inFlight.values()].map((f) => f.campaignId))];
    if (ids.length) {
      const abortedIds = await abortedCampaignIds(this.ctx.db, ids);
      const set = new Set(abortedIds.map((r) => r.id));
      for (const f of this.inFlight.values()) if (set.has(f.campaignId)) void f.call?.hangup(Q850.OriginatorCancel).catch(() => undefined);
    }
    return rows.length;
  }

  /** Resolves when every call this engine has in flight is recorded. */
  async settle(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight.values()].map((f) => f.task));
    await this.sms.settle();
  }

  /**
   * Runs passes until stop(): one pass, then sleep pollMs or until wake(). A pass cut short by a
   * claim cap is followed by the next at once, or as soon as a call in flight ends when the
   * engine is full. Within pollMs of the last whole pass that next pass only claims, for the
   * campaigns that pass found: the rest of a pass (ends, aborts, spooling, alarms, SMS, the
   * report; about 40 % of a pass's time at the claim cap, in bench:events) need not run a dozen
   * times a second, and a claim still finds only START campaigns (lockStartCampaign).
   */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    if (this.options.databaseKind === 'postgres') {
      this.lastFenceTick = performance.now();
      this.fenceTimer = setInterval(() => this.fenceTick(), fenceTickMs).unref();
    }
    this.running = (async () => {
      while (!this.stopping) {
        try {
          if (this.more && performance.now() - this.lastWholePass < this.pollMs) {
            await this.claimAndDial(this.live);
          } else {
            this.lastWholePass = performance.now();
            await this.runOnce();
          }
          this.outage.reached();
        } catch (err) {
          // A database out of reach fails every pass (5 a second) until it is back: said once.
          if (!this.outage.failed(err)) this.ctx.log.error(`engine pass failed: ${(err as Error).message}`);
          this.more = false; // the next pass, whole, after a poll's time
        }
        if (this.stopping) break;
        if (this.more && this.inFlight.size <= this.maxInFlight / 2) {
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  /** Cuts the sleep between passes short (a campaign started, contacts trickled in …). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Stops claiming, lets calls in flight finish (hung up after the grace period), records them. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    this.running = undefined;
    clearInterval(this.fenceTimer);
    const grace = setTimeout(() => {
      for (const f of this.inFlight.values()) void f.call?.hangup().catch(() => undefined);
    }, this.options.stopGraceMs ?? 10_000);
    await this.settle();
    clearTimeout(grace);
    await forgetEngine(this.ctx.db, this.ctx.engineId);
  }
}
