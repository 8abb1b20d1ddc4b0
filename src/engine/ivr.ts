/**
 * The IVR runner: plays the campaign's frozen survey (contract §5, SurveyFlow) over a driver
 * Call, section by section, following branches with `nextSection`. It returns the answers and
 * the B-legs; the outcome (one transaction) writes them. Section types as in contract §4.
 */
import type { Db } from '../db/database.ts';
import { SectionType } from '../db/schema.ts';
import { rootMessage, untilReached } from '../db/unreachable.ts';
import { requestGuarded } from '../http/outbound.ts';
import { type FlowInput, type FlowSection, type SurveyFlow, firstSection, nextSection } from '../campaign/survey-flow.ts';
import type { Call, Hangup } from '../drivers/voice/driver.ts';
import { fillPlaceholders } from '../campaign/placeholders.ts';
import { addDncNumber, optOutList } from './store/dnc.ts';

export interface SectionResult {
  section_id: number;
  section_order: number;
  question: string;
  response: string;
  record_file: string;
}

export interface TransferLeg {
  callId: string;
  number: string;
  hangup: Hangup;
}

export interface IvrOutcome {
  results: SectionResult[];
  transfers: TransferLeg[];
  /** The call reached a section marked `completed`. */
  completed: boolean;
  /** The last section passed with `callback_minutes` asks for a callback that much later (issue 16, item 8). */
  callbackMinutes?: number;
  /** Why the survey stopped short (a section failed); what was answered before it is kept above. */
  error?: string;
}

export interface IvrContext {
  db: Db;
  call: Call;
  flow: SurveyFlow;
  /** The call's variables (campaign, subscriber, contact, additional_vars): API query params. */
  variables: Record<string, string>;
  callerId: string;
  campaign: { id: number; user_id: number; dnc_id: number | null; sms_gateway_id: number | null; calltimeout: number };
  phoneNumber: string;
  /** The number's key (contract §1): what an opt-out puts on the DNC list. */
  phoneKey: string;
  /** Sends the send-SMS section's text to the caller; answers what happened (sms/call-sms.ts). */
  sendSms?: (template: string) => Promise<string>;
  /** HTTP timeout of API sections; absent = the section's own `timeout` (seconds). */
  apiTimeoutMs?: number;
  /** API sections may call loopback and private addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
  /** Takes one of the campaign's transfer slots (max_xfer, transfer-slots.ts): its release, or null when none is free. */
  transferSlot?: () => (() => void) | null;
  /**
   * Whether the engine is stopping: an opt-out that cannot reach the database is tried again
   * until it can (untilReached), unless then. Absent: not tried again.
   */
  stopping?: () => boolean;
  /** Told once when an opt-out waits for the database. */
  warn?: (message: string) => void;
}

/** What a section produced: the input for branching and, when answered, its result row. */
interface Step {
  input: FlowInput;
  response?: string;
  recordFile?: string;
  /** The caller hung up during the section. */
  gone?: boolean;
}

/**
 * A section's text as spoken (text to speech): `{full_name}` and the contact's additional_vars
 * filled in, as an SMS's (campaign/placeholders.ts); null when there is none.
 */
function spoken(ctx: IvrContext, text: string | null): string | null {
  return text ? fillPlaceholders(text, ctx.variables.full_name ?? '', ctx.variables) : text;
}

/** Asks for keys up to 1 + retries times; `accept` says whether an answer is valid. */
async function ask(ctx: IvrContext, s: FlowSection, maxDigits: number, accept: (d: string) => boolean): Promise<Step> {
  const tries = 1 + Math.max(0, s.retries ?? 0);
  let outcome: 'timeout' | 'invalid' = 'timeout';
  for (let i = 0; i < tries; i++) {
    await ctx.call.play({ audioFile: s.audiofile, text: spoken(ctx, s.script || s.question) });
    const digits = await ctx.call.collect({ maxDigits, timeoutSeconds: s.timeout });
    if (digits === null) return { input: { outcome: 'timeout' }, gone: true };
    if (digits !== '' && accept(digits)) return { input: { digits, outcome: 'ok' }, response: digits };
    outcome = digits === '' ? 'timeout' : 'invalid';
    if (outcome === 'invalid' && s.invalid_audiofile) await ctx.call.play({ audioFile: s.invalid_audiofile });
  }
  return { input: { outcome }, response: '' };
}

const inRange = (d: string, min: number, max: number) => /^\d+$/.test(d) && Number(d) >= min && Number(d) <= max;

/**
 * Section 9: the number joins the campaign's DNC list, or the owner's first global list. The
 * caller asked not to be called again: while the database is out of reach (a restart) the add is
 * tried again until it goes through, the caller still on the line, rather than lost with the
 * survey. Adding is idempotent, so a try whose commit went through and whose answer was lost
 * adds nothing twice.
 */
async function addToDnc(ctx: IvrContext): Promise<string> {
  const add = async () => {
    const list = await optOutList(ctx.db, ctx.campaign.dnc_id, ctx.campaign.user_id);
    if (!list) return 'not added: no DNC list';
    await addDncNumber(ctx.db, list.id, ctx.phoneNumber, ctx.phoneKey);
    return `added to DNC list ${list.id}`;
  };
  return untilReached(add, {
    giveUp: ctx.stopping ?? (() => true),
    waiting: (err) => ctx.warn?.(`opt-out of ${ctx.phoneNumber}: the database is out of reach (${rootMessage(err)}); trying again until it answers`),
  });
}

/**
 * Section 11/14: HTTP GET to api_url with the call's variables as query parameters. The answer
 * (the body, trimmed) waits at most the section's `timeout`, as a caller's input would. The URL
 * is guarded against SSRF like a webhook's (http/outbound.ts): a private address is 'invalid'.
 */
async function callApi(ctx: IvrContext, s: FlowSection): Promise<{ body: string; outcome: 'ok' | 'timeout' | 'invalid' }> {
  if (!s.api_url) return { body: '', outcome: 'invalid' };
  try {
    const url = new URL(s.api_url);
    for (const [k, v] of Object.entries(ctx.variables)) url.searchParams.set(k, v);
    const res = await requestGuarded('GET', url, undefined, {}, {
      allowPrivate: ctx.allowPrivate ?? false,
      timeoutMs: ctx.apiTimeoutMs ?? Math.max(1, s.timeout) * 1000,
      keep: 1000,
    });
    return { body: res.body.trim(), outcome: res.status >= 200 && res.status < 300 ? 'ok' : 'invalid' };
  } catch (err) {
    return { body: '', outcome: (err as Error).name === 'TimeoutError' ? 'timeout' : 'invalid' };
  }
}

const multiChoice = (ctx: IvrContext, s: FlowSection) => ask(ctx, s, 1, (d) => Boolean(s.keys[Number(d)]) && /^\d$/.test(d));
const rating = (ctx: IvrContext, s: FlowSection) => ask(ctx, s, String(s.rating_laps).length, (d) => inRange(d, 1, s.rating_laps));
const capture = (ctx: IvrContext, s: FlowSection) =>
  ask(ctx, s, s.number_digits, (d) => !s.validate_number || inRange(d, s.min_number, s.max_number));

async function transfer(ctx: IvrContext, s: FlowSection, out: IvrOutcome): Promise<Step> {
  // max_xfer transfers already up: no transfer; the survey goes on to the next section.
  const release = ctx.transferSlot ? ctx.transferSlot() : () => undefined;
  if (!release) return { input: {}, response: 'not transferred: max_xfer reached' };
  try {
    await ctx.call.play({ audioFile: s.audiofile, text: spoken(ctx, s.script || null) });
    const number = s.phonenumber ?? '';
    const leg = await ctx.call.transfer({ number, callerId: ctx.callerId, timeoutSeconds: ctx.campaign.calltimeout });
    out.transfers.push({ callId: leg.callId, number, hangup: leg.hangup });
    return { input: {}, response: number };
  } finally {
    release();
  }
}

async function runSection(ctx: IvrContext, s: FlowSection, out: IvrOutcome): Promise<Step> {
  const say = () => ctx.call.play({ audioFile: s.audiofile, text: spoken(ctx, s.script || s.question) });
  switch (s.type) {
    case SectionType.MultiChoice:
      return multiChoice(ctx, s);
    case SectionType.Rating:
      return rating(ctx, s);
    case SectionType.CaptureDigits:
      return capture(ctx, s);
    case SectionType.RecordMessage: {
      await say();
      const rec = await ctx.call.record({ maxSeconds: Math.max(s.timeout, 60) });
      return { input: {}, response: rec.file, recordFile: rec.file };
    }
    case SectionType.CallTransfer:
      return transfer(ctx, s, out);
    case SectionType.Conference:
    case SectionType.Queue:
      await say();
      await ctx.call.bridge(s.type === SectionType.Queue ? { queue: s.queue ?? '' } : { conference: s.conference ?? '' });
      return { input: {}, response: (s.type === SectionType.Queue ? s.queue : s.conference) ?? '' };
    case SectionType.Dnc:
      await say();
      return { input: {}, response: await addToDnc(ctx) };
    case SectionType.SmsMessage:
      await say();
      // Sent through the campaign's SMS gateway (sms/call-sms.ts); without one none can be.
      if (!ctx.campaign.sms_gateway_id || !ctx.sendSms) return { input: {}, response: 'sms not sent: no SMS gateway' };
      return { input: {}, response: await ctx.sendSms(s.sms_text ?? '') };
    case SectionType.ApiCall: {
      const answer = await callApi(ctx, s);
      return { input: { digits: answer.body, outcome: answer.outcome }, response: answer.body };
    }
    case SectionType.AsyncApiCall:
      void callApi(ctx, s);
      return { input: {} };
    case SectionType.SpeechRecognition: {
      await say();
      const words = await ctx.call.listen({ timeoutSeconds: s.timeout });
      if (words === null) return { input: { outcome: 'timeout' }, gone: true };
      return { input: { digits: words }, response: words };
    }
    default: // play message (1), hang up (7: the flow ends after it)
      await say();
      return { input: {} };
  }
}

/** Runs the survey until it ends, the caller hangs up, or a hang-up section; never throws on a hangup. */
export async function runSurvey(ctx: IvrContext): Promise<IvrOutcome> {
  const out: IvrOutcome = { results: [], transfers: [], completed: false };
  let hungUp = false;
  void ctx.call.ended.then(() => (hungUp = true));
  let section = firstSection(ctx.flow);
  for (let guard = 0; section && !hungUp && guard < 1000; guard++) {
    if (section.completed) out.completed = true;
    if (section.callback_minutes) out.callbackMinutes = section.callback_minutes;
    let step: Step;
    try {
      step = await runSection(ctx, section, out);
    } catch (err) {
      // The survey stops here; what the caller answered before is kept, and recorded with the call.
      out.error = `section ${section.id}: ${(err as Error).message}`;
      break;
    }
    if (step.response !== undefined) {
      out.results.push({
        section_id: section.id,
        section_order: section.order,
        question: section.question,
        response: step.response,
        record_file: step.recordFile ?? '',
      });
    }
    if (step.gone) break;
    section = nextSection(ctx.flow, section, step.input);
  }
  return out;
}
