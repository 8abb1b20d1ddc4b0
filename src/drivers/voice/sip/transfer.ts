/**
 * Call transfer (section type 6) by the gateway's `transfer_mode`:
 * - refer: REFER the callee to the number (RFC 3515); the carrier connects them and reports by
 *   NOTIFY (sipfrag). We cannot see the B-leg's talk time, so its CDR says whether the carrier
 *   connected it (answered at that moment, billsec 0) or what it answered instead; our leg ends.
 * - bridge: a B-leg INVITE through the same trunk, RTP relayed between the legs
 *   (media.relayTo), until either leg hangs up; the B-leg's CDR has its real times.
 */
import type { Hangup } from '../driver.ts';
import { Q850 } from '../driver.ts';
import type { SipCall } from './call.ts';
import { causeOfStatus, sipCauseName } from './causes.ts';
import type { Dialog } from './dialog.ts';
import type { SipDriver } from './driver.ts';

export interface TransferResult {
  callId: string;
  hangup: Hangup;
}

interface Target {
  callId: string;
  number?: string;
  uri?: string;
  callerId: string;
  timeoutSeconds: number;
}

function legHangup(start: Date, cause: number, answeredAt: Date | null, end: Date): Hangup {
  return {
    cause,
    causeName: sipCauseName(cause),
    startedAt: start,
    answeredAt,
    endedAt: end,
    duration: Math.round((end.getTime() - start.getTime()) / 1000),
    billsec: answeredAt ? Math.round((end.getTime() - answeredAt.getTime()) / 1000) : 0,
  };
}

export async function referTransfer(driver: SipDriver, call: SipCall, dialog: Dialog, target: Target): Promise<TransferResult> {
  const start = driver.now();
  const uri = target.uri ?? driver.requestUri(target.number ?? '');
  // The final sipfrag status, or 0 when the carrier never said (waits ring time plus a margin).
  const final = new Promise<number>((resolve) => {
    const timer = setTimeout(() => done(0), (target.timeoutSeconds + 10) * 1000);
    const done = (status: number) => {
      clearTimeout(timer);
      call.notifies.delete(listener);
      resolve(status);
    };
    const listener = (status: number) => {
      if (status >= 200) done(status);
    };
    call.notifies.add(listener);
    void call.ended.then(() => done(0));
  });
  const accepted = await dialog.request('REFER', { 'refer-to': `<${uri}>`, 'referred-by': `<sip:${target.callerId}@${driver.fromDomain()}>` });
  if ((accepted.status ?? 0) >= 300) {
    return { callId: target.callId, hangup: legHangup(start, causeOfStatus(accepted.status ?? 500), null, driver.now()) };
  }
  const status = await final;
  const at = driver.now();
  if (status >= 200 && status < 300) {
    await call.hangup(Q850.NormalClearing); // the carrier has the callee now
    return { callId: target.callId, hangup: legHangup(start, Q850.NormalClearing, at, at) };
  }
  return { callId: target.callId, hangup: legHangup(start, status ? causeOfStatus(status) : Q850.NoAnswer, null, at) };
}

export async function bridgeTransfer(driver: SipDriver, call: SipCall, target: Target): Promise<TransferResult> {
  const leg = driver.originateLeg({
    ...call.request,
    callId: target.callId,
    to: target.number ?? '',
    uri: target.uri,
    callerId: target.callerId,
    timeoutSeconds: target.timeoutSeconds,
    amd: false,
  });
  const stopHangup = () => void leg.hangup();
  void call.ended.then(stopHangup);
  const answer = await leg.answered;
  if (!answer.answered) return { callId: target.callId, hangup: answer.hangup };
  const unrelay = call.media && leg.media ? call.media.relayTo(leg.media) : () => undefined;
  const hangup = await leg.ended;
  unrelay();
  return { callId: target.callId, hangup };
}
