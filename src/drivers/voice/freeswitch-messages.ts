/**
 * What the freeswitch driver writes to FreeSWITCH and reads from it, as plain functions: cause
 * names and codes, channel variable blocks, the originate command, the hangup a
 * CHANNEL_HANGUP_COMPLETE tells, mod_amd's result and an ASR result's words (NLSML).
 */
import { Q850, type AmdResult, type Hangup, type OriginateRequest } from './driver.ts';
import type { Headers } from './freeswitch-esl.ts';

/** FreeSWITCH's hangup cause names and codes (Q.850, and its own 5xx/6xx above 127). */
export const CAUSES: Record<string, number> = {
  UNALLOCATED_NUMBER: 1, NO_ROUTE_DESTINATION: 3, NORMAL_CLEARING: 16, USER_BUSY: 17, NO_USER_RESPONSE: 18,
  NO_ANSWER: 19, SUBSCRIBER_ABSENT: 20, CALL_REJECTED: 21, NUMBER_CHANGED: 22, DESTINATION_OUT_OF_ORDER: 27,
  INVALID_NUMBER_FORMAT: 28, NORMAL_UNSPECIFIED: 31, NORMAL_CIRCUIT_CONGESTION: 34, NETWORK_OUT_OF_ORDER: 38,
  NORMAL_TEMPORARY_FAILURE: 41, SWITCH_CONGESTION: 42, RECOVERY_ON_TIMER_EXPIRE: 102, ORIGINATOR_CANCEL: 487,
  MANAGER_REQUEST: 503, ALLOTTED_TIMEOUT: 602, MEDIA_TIMEOUT: 604, USER_NOT_REGISTERED: 606, PROGRESS_TIMEOUT: 607,
  GATEWAY_DOWN: 609,
};
const NAMES = Object.fromEntries(Object.entries(CAUSES).map(([name, code]) => [code, name]));
export const nameOf = (code: number) => NAMES[code] ?? 'NORMAL_CLEARING';
/** A cause name's code; an unknown name falls back on the event's Q.850 code, else 41. */
export const codeOf = (name: string, q850?: string) => CAUSES[name] ?? (Number(q850) || Q850.NormalTemporaryFailure);

/** A channel variable block `{a=1,b='two words'}`: commas and quotes escaped, names sanitised. */
export function channelVars(vars: Record<string, string>): string {
  const value = (v: string) => {
    const clean = v.replace(/[\r\n]+/g, ' ').replace(/[\\',]/g, (c) => `\\${c}`);
    return /[\s{}]/.test(clean) ? `'${clean}'` : clean;
  };
  return `{${Object.entries(vars)
    .map(([k, v]) => `${k.replace(/[^A-Za-z0-9_]/g, '_')}=${value(v)}`)
    .join(',')}}`;
}

/** `gateways` is the dial-string prefix (comma-separated: tried in turn, FreeSWITCH's `|`). */
export function dialString(gateway: OriginateRequest['gateway'], number: string): string {
  const prefixes = gateway.gateways.split(',').map((p) => p.trim()).filter(Boolean);
  if (!prefixes.length) return `sofia/gateway/${gateway.name}/${number}`;
  return prefixes.map((p) => p + number).join('|');
}

const RESERVED = new Set(['origination_uuid', 'origination_caller_id_number', 'origination_caller_id_name', 'originate_timeout', 'ignore_early_media']);

/**
 * The originate command. The gateway's `originate_dial_string` is, as in Newfies-Dialer, more
 * channel variables (`bridge_early_media=true,hangup_after_bridge=true`) added as given; the
 * call's variables cannot override ours.
 */
export function originateCommand(r: OriginateRequest): string {
  const own = {
    origination_uuid: r.callId,
    origination_caller_id_number: r.callerId,
    origination_caller_id_name: r.callerName || r.callerId,
    originate_timeout: String(r.timeoutSeconds),
    ignore_early_media: 'true',
  };
  const theirs = Object.fromEntries(Object.entries(r.variables).filter(([k]) => !RESERVED.has(k)));
  let vars = channelVars({ ...own, ...theirs });
  const extra = r.gateway.originate_dial_string.trim().replace(/^\{|\}$/g, '');
  if (extra) vars = `${vars.slice(0, -1)},${extra}}`;
  return `originate ${vars}${dialString(r.gateway, r.to)} &park()`;
}

/** A time of the channel from its variables (`start`, `answer`, `end`); null when unset (0). */
export function channelTime(h: Headers, which: string): Date | null {
  const micros = Number(h[`variable_${which}_uepoch`]);
  if (micros > 0) return new Date(micros / 1000);
  const seconds = Number(h[`variable_${which}_epoch`]);
  return seconds > 0 ? new Date(seconds * 1000) : null;
}

/** The hangup a CHANNEL_HANGUP_COMPLETE tells; what it lacks comes from what we saw. */
export function hangupOf(h: Headers, seen: { startedAt: Date; answeredAt: Date | null; now: Date }): Hangup {
  const causeName = h['Hangup-Cause'] ?? h.variable_hangup_cause ?? 'NORMAL_CLEARING';
  const startedAt = channelTime(h, 'start') ?? seen.startedAt;
  const answeredAt = channelTime(h, 'answer') ?? seen.answeredAt;
  const endedAt = channelTime(h, 'end') ?? seen.now;
  const seconds = (from: Date) => Math.max(0, Math.round((endedAt.getTime() - from.getTime()) / 1000));
  const given = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
  return {
    cause: codeOf(causeName, h.variable_hangup_cause_q850),
    causeName,
    startedAt,
    answeredAt,
    endedAt,
    duration: given(h.variable_duration) ?? seconds(startedAt),
    billsec: given(h.variable_billsec) ?? (answeredAt ? seconds(answeredAt) : 0),
  };
}

/** mod_amd's `amd_result` → ours; NOTSURE, none or anything else is 'unsure'. */
export const AMD_RESULTS: Record<string, AmdResult> = { HUMAN: 'person', MACHINE: 'machine' };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The words of an ASR result (NLSML, as mod_pocketsphinx and mod_unimrcp give it): the text of
 * its first `<input>`, entities decoded, spaces collapsed; '' when there is none (`<noinput/>`,
 * `<nomatch/>`, an empty or missing input).
 */
export function nlsmlText(xml: string): string {
  const input = /<input\b[^>]*>([\s\S]*?)<\/input>/i.exec(xml)?.[1] ?? '';
  // One pass, so a CDATA section stays literal: CDATA kept, tags a space, entities decoded.
  return input
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>|<[^>]*>|&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, cdata?: string, e?: string) => {
      if (cdata !== undefined) return cdata;
      if (e === undefined) return ' ';
      if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? whole;
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}
