/**
 * One SMS sent outside a campaign's batches: from a call's send-SMS section (call-sms.ts) or as an
 * appointment reminder (alarms/messages.ts). As SMS campaigns send: the sms_messages row is
 * committed 'unsent' (cost = the owner's sms_rate × parts) before the driver is asked, and the
 * driver's answer is recorded by the same function as a campaign's batch (recordResults: sent and
 * charged, or failed and free).
 *
 * With the database out of reach, each step waits for it to answer (untilReached), unless the
 * engine stops: the gateway read, the checks and the insert together, then the record. An insert
 * tried again after its commit's answer was lost leaves that first row 'unsent': the engine's
 * recovery fails it, free (recover.ts recoverLostLoneSms). The text goes out once, with the row
 * whose answer came back. Recording twice is harmless (settleMessages takes a message once).
 */
import { GatewayStatus } from '../../db/schema.ts';
import { rootMessage, untilReached } from '../../db/unreachable.ts';
import { smsParts } from '../../drivers/sms/encoding.ts';
import type { EngineContext } from '../context.ts';
import { findSmsGateway } from '../store/gateways.ts';
import { recordResults } from './record.ts';

export interface LoneSms {
  gatewayId: number;
  to: string;
  from: string;
  text: string;
  /** Inserts the message 'unsent' through this gateway with `parts`; returns its id. */
  insert: (gatewayId: number, parts: number) => Promise<number>;
  /** Why it must not be sent (a do-not-call list), read with the gateway; undefined: send it. */
  refusal?: () => Promise<string | undefined>;
  /** Whether the engine is stopping: the waits for a database out of reach then end. */
  stopping?: () => boolean;
  /** Whom it is for, in the log ("call 12", "reminder to +12125550100"). */
  who: string;
}

/** Sends it; the answer is `sms sent: message N` or `sms not sent: <why>`. */
export async function sendLoneSms(ctx: EngineContext, m: LoneSms): Promise<{ ok: boolean; detail: string }> {
  const drivers = ctx.smsDrivers;
  if (!drivers) return { ok: false, detail: 'sms not sent: SMS gateway inactive' };
  const giveUp = m.stopping ?? (() => true);
  const parts = smsParts(m.text).parts;
  const prepared = await untilReached(
    async () => {
      const gateway = await findSmsGateway(ctx.db, m.gatewayId);
      if (!gateway || gateway.status !== GatewayStatus.Active) return 'SMS gateway inactive';
      const refused = await m.refusal?.();
      if (refused) return refused;
      return { gateway, messageId: await m.insert(gateway.id, parts) };
    },
    { giveUp, waiting: (err) => ctx.log.warn(`sms (${m.who}): the database is out of reach (${rootMessage(err)}); sending it when it answers`) },
  );
  if (typeof prepared === 'string') return { ok: false, detail: `sms not sent: ${prepared}` };
  const { gateway, messageId } = prepared;
  let result;
  try {
    result = await drivers(gateway).send({ messageId, to: m.to, from: m.from, text: m.text });
  } catch (err) {
    result = { ok: false as const, error: (err as Error).message, retry: false };
  }
  // The message went to the gateway: its answer is recorded (sent and charged) once the database
  // answers, as a campaign's are (engine.ts record).
  await untilReached(() => recordResults(ctx.db, [{ messageId, ...result }], ctx.clock.now()), {
    giveUp,
    waiting: (err) => ctx.log.warn(`sms message ${messageId} (${m.who}): the database is out of reach (${rootMessage(err)}); recording it when it answers`),
  });
  return result.ok ? { ok: true, detail: `sms sent: message ${messageId}` } : { ok: false, detail: `sms not sent: ${result.error}` };
}
