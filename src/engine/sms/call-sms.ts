/**
 * A voice call's send-SMS section (type 10, contract §4): the section's text, filled in with the
 * call's variables, goes to the caller through the campaign's SMS gateway (send-one.ts: committed
 * 'unsent', sent, recorded; with the database out of reach, each step waits for it, the caller on
 * the line). The message is readable at /rest-api/sms-message/ with its `callrequest`. Returns
 * the section's answer.
 */
import type { EngineContext } from '../context.ts';
import { insertCallMessage } from '../store/sms-messages.ts';
import { renderSms } from './render.ts';
import { sendLoneSms } from './send-one.ts';

export interface CallSms {
  campaign: { user_id: number; sms_gateway_id: number | null; callerid: string };
  callrequestId: number;
  to: string;
  template: string;
  variables: Record<string, string>;
  /** Whether the engine is stopping: the driver's answer then stops waiting for a database out of reach. */
  stopping?: () => boolean;
}

export async function sendCallSms(ctx: EngineContext, m: CallSms): Promise<string> {
  const gatewayId = m.campaign.sms_gateway_id;
  if (!gatewayId) return 'sms not sent: no SMS gateway';
  const text = renderSms(m.template, m.variables.full_name ?? '', m.variables);
  const sent = await sendLoneSms(ctx, {
    gatewayId,
    to: m.to,
    from: m.campaign.callerid,
    text,
    insert: (id, parts) =>
      insertCallMessage(ctx.db, { callrequestId: m.callrequestId, userId: m.campaign.user_id, gatewayId: id, to: m.to, from: m.campaign.callerid, text, parts, engineId: ctx.engineId }),
    stopping: m.stopping,
    who: `call ${m.callrequestId}`,
  });
  return sent.detail;
}
