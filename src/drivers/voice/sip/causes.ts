/**
 * A SIP final response as a Q.850 cause (RFC 3398 §8.2.6.1, the table FreeSWITCH and most
 * gateways follow), so that the CDR's disposition (contract §4) reads the same as with any
 * other driver: 486/600 busy (17), 480/408 no answer (19), 404/484/604 unallocated (1),
 * 403/603 rejected (21), 500/503 congestion (34). 484 reads as unallocated (1), not RFC 3398's
 * invalid format (28): a wrong number either way, and dispositions treat both as FAILED.
 */
import { causeName } from '../causes.ts';
import { Q850 } from '../driver.ts';

const BY_STATUS: Record<number, number> = {
  400: 41, 401: 21, 402: 21, 403: Q850.CallRejected, 404: 1, 405: 63, 406: 79, 407: 21, 408: Q850.NoAnswer,
  410: 22, 413: 127, 414: 127, 415: 79, 416: 127, 420: 127, 421: 127, 423: 127, 480: Q850.NoAnswer, 481: 41,
  482: 25, 483: 25, 484: 1, 485: 1, 486: Q850.UserBusy, 487: Q850.OriginatorCancel, 488: 65, 500: Q850.Congestion,
  501: 79, 502: 38, 503: Q850.Congestion, 504: 102, 505: 127, 513: 127, 600: Q850.UserBusy, 603: Q850.CallRejected,
  604: 1, 606: 58,
};

/** Q.850 cause of a final response; unlisted 4xx/5xx/6xx fall back by class (RFC 3398: 31, 41, 31). */
export function causeOfStatus(status: number): number {
  return BY_STATUS[status] ?? (status >= 500 && status < 600 ? Q850.NormalTemporaryFailure : 31);
}

/** Retry-After in seconds (RFC 3261 §20.33: `delta-seconds [comment] *(;params)`), or 0. */
export function retryAfterSeconds(header: unknown): number {
  const m = typeof header === 'string' ? /^\s*(\d+)/.exec(header) : null;
  return m ? Number(m[1]) : 0;
}

/** Names FreeSWITCH gives the causes a SIP answer can bring that the shared table lacks. */
const MORE_NAMES: Record<number, string> = {
  1: 'UNALLOCATED_NUMBER',
  22: 'NUMBER_CHANGED',
  25: 'EXCHANGE_ROUTING_ERROR',
  28: 'INVALID_NUMBER_FORMAT',
  31: 'NORMAL_UNSPECIFIED',
  38: 'NETWORK_OUT_OF_ORDER',
  58: 'BEARERCAPABILITY_NOTAVAIL',
  63: 'SERVICE_UNAVAILABLE',
  65: 'BEARERCAPABILITY_NOTIMPL',
  79: 'SERVICE_NOT_IMPLEMENTED',
  88: 'INCOMPATIBLE_DESTINATION',
  102: 'RECOVERY_ON_TIMER_EXPIRE',
  127: 'INTERWORKING',
};

/** The cause's name as FreeSWITCH spells it. */
export function sipCauseName(cause: number): string {
  return MORE_NAMES[cause] ?? causeName(cause);
}
