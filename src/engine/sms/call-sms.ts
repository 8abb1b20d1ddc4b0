/**
 * A voice call's send-SMS section (type 10, contract §4): the section's text, filled in with the
 * call's variables, goes to the caller through the campaign's SMS gateway, as SMS campaigns send:
 * the sms_messages row is committed 'unsent' (parts, cost = sms_rate × parts) before the driver
 * is asked, and the driver's answer is recorded by the same function as a campaign's batch
 * (recordResults: sent and charged, or failed and free). With the database out of reach, each
 * step waits for it to answer, the caller on the line. The message is readable at
 * /rest-api/sms-message/ with its `callrequest`. Returns the section's answer.
 */
import { GatewayStatus } from '../../db/schema.ts';
import type { EngineContext } from '../context.ts';
import { smsParts } from '../../drivers/sms/encoding.ts';
import { findSmsGateway } from '../store/gateways.ts';
import { insertCallMessage } from '../store/sms-messages.ts';
import { recordResults } from './record.ts';
import { renderSms } from './render.ts';
import { rootMessage, untilReached } from '../../db/unreachable.ts';

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
  const drivers = ctx.smsDrivers;
  if (!drivers) return 'sms not sent: SMS gateway inactive';
  const text = renderSms(m.template, m.variables.full_name ?? '', m.variables);
  const parts = smsParts(text).parts;
  // The gateway read and the insert wait for a database out of reach (the caller on the line),
  // as the record below does. An insert tried again after its commit's answer was lost leaves
  // that first row unsent: once the call is over the engine's recovery fails it, free
  // (recover.ts recoverLostCallSms). The text goes out once, with the row that was answered.
  const prepared = await untilReached(
    async () => {
      const gateway = await findSmsGateway(ctx.db, gatewayId);
      if (!gateway || gateway.status !== GatewayStatus.Active) return undefined;
      const messageId = await insertCallMessage(ctx.db, {
        callrequestId: m.callrequestId,
        userId: m.campaign.user_id,
        gatewayId: gateway.id,
        to: m.to,
        from: m.campaign.callerid,
        text,
        parts,
        engineId: ctx.engineId,
      });
      return { gateway, messageId };
    },
    {
      giveUp: m.stopping ?? (() => true),
      waiting: (err) => ctx.log.warn(`sms (call ${m.callrequestId}): the database is out of reach (${rootMessage(err)}); sending it when it answers`),
    },
  );
  if (!prepared) return 'sms not sent: SMS gateway inactive';
  const { gateway, messageId } = prepared;
  let result;
  try {
    result = await drivers(gateway).send({ messageId, to: m.to, from: m.campaign.callerid, text });
  } catch (err) {
    result = { ok: false as const, error: (err as Error).message, retry: false };
  }
  // The message went to the gateway: its answer is recorded (sent and charged) once the
  // database answers, as a campaign's are (sms/engine.ts record); left unsent, a recovery would
  // fail it. Recording twice is harmless (settleMessages takes a message once).
  await untilReached(() => recordResults(ctx.db, [{ messageId, ...result }], ctx.clock.now()), {
    giveUp: m.stopping ?? (() => true),
    waiting: (err) => ctx.log.warn(`sms message ${messageId} (call ${m.callrequestId}): the database is out of reach (${rootMessage(err)}); recording it when it answers`),
  });
  return result.ok ? `sms sent: message ${messageId}` : `sms not sent: ${result.error}`;
}
