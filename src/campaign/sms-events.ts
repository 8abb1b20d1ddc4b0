/**
 * What SMS gateways tell us (contract §7, issue 6 §6), from any driver: SMPP deliver_sm through
 * the driver's context, Kannel's dlr-url and MO callbacks through the sms-gateway routes.
 *
 * report(): a delivery report finds its message by our id (Kannel's report URL carries it) or by
 * the gateway's id of the message, and sets 'delivered' or 'failed' (+ delivery_date, error).
 * A 'sent' report never downgrades a final status, and 'failed' never overrides 'delivered'.
 * Reports are written in batches (those arriving together share one statement).
 * A report by gateway id can arrive before the engine has recorded the send that gave it (an
 * SMPP receipt racing the batch): one that finds no message is tried again every second for
 * UNMATCHED_REPORT_RETRY_MS (120 s) from its arrival, then dropped with a warning. The promise
 * report() returns resolves once the report is written or given up (matched no message: the
 * warning says so), and rejects only when the database write fails. close() (at shutdown)
 * writes what is queued, tries the waiting reports once more and gives up on the rest.
 * A failed delivery is not refunded: the gateway took the message and the operator is billed for
 * the submission, as SMS carriers bill; and the subscriber is not sent it again (it stays
 * COMPLETE) — resending on delivery failure is a policy we keep out for simplicity.
 *
 * inbound(): stores the message (sms_inbound). An opt-out (first word STOP, STOPALL,
 * UNSUBSCRIBE, CANCEL, END or QUIT, any case) puts the sender's number on a global DNC list of
 * the owner of the latest SMS campaign that messaged that number through that gateway (a list
 * "SMS opt-out" is made for them if they have no global list), so none of their SMS or voice
 * campaigns reaches that number again (both engines check the owner's global lists).
 */
import { type SQL, sql } from 'drizzle-orm';
import { appendEvents, EventType, smsMessageEventsSql } from './events.ts';
import { type Db, queryRows } from '../db/database.ts';
import { json } from '../db/sql.ts';
import { nationalFormsOf, normalizePhone, phoneKey } from '../http/phone.ts';
import type { DeliveryReport, InboundMessage, SmsEvents } from '../drivers/sms/driver.ts';

export const OPT_OUT_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const OPT_OUT_LIST_NAME = 'SMS opt-out';

interface EventsLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** The opt-out word `text` starts with, or '' when none. */
export function optOutWord(text: string): string {
  const first = text.trim().split(/\s+/)[0]?.replace(/[.!]+$/, '').toUpperCase() ?? '';
  return (OPT_OUT_WORDS as readonly string[]).includes(first) ? first : '';
}

/** A report waiting in the batch, with the caller's promise. */
interface QueuedReport {
  gatewayId: number;
  report: DeliveryReport;
  /** Date.now() when it arrived: the retry bound of an unmatched report counts from it. */
  arrivedAt: number;
  done: { resolve: () => void; reject: (err: Error) => void };
}

/** Rank of a report status: the strongest report of a message in one batch wins ('failed' never overrides 'delivered'). */
const rank = { sent: 0, failed: 1, delivered: 2 } as const;

/** The key of a report found by the gateway's id of its message. */
const gatewayKey = (gatewayId: number, gid: string) => `${gatewayId}:${gid}`;
const reportGid = (r: DeliveryReport) => (r.gatewayMessageId ?? '').slice(0, 100);

/**
 * The CTEs `locked` and `applied`: the messages matched by `match` to the reports in the CTE `r`,
 * locked as they are now (the engine may record a send meanwhile), and their status update,
 * returning each changed message with `sent_too`: a final report (delivered, failed) found it
 * still 'unsent' — the gateway had it, so it was sent, but the report came before the engine
 * recorded the send (or with the 'sent' report, in one batch): its sms.sent is written here,
 * before the final event, and the send's record writes none (it writes events only for a message
 * it finds 'unsent').
 */
const updateMessages = (match: SQL) => sql`locked as (
        select m.id, m.status as was, r.status as new_status, r.at, r.error as new_error, r.gid
        from sms_messages m join r on m.sms_gateway_id = r.g and ${match}
        for update of m
      ), applied as (
        update sms_messages m set status = l.new_status, updated_date = now(),
          delivery_date = case when l.new_status = 'sent' then m.delivery_date else l.at end,
          error = case when l.new_status = 'sent' then m.error else l.new_error end,
          gateway_message_id = case when m.gateway_message_id = '' then l.gid else m.gateway_message_id end
        from locked l where m.id = l.id
          and (m.status = 'unsent' or (m.status = 'sent' and l.new_status <> 'sent') or (m.status = 'failed' and l.new_status = 'delivered'))
        returning m.id, m.user_id, m.sms_campaign_id, m.recipient_number, m.status, m.error, (l.was = 'unsent' and m.status <> 'sent') as sent_too
      )`;

/**
 * Applies a batch of delivery reports in two set-based statements (by our message id, and by the
 * gateway's id of the message). A 'sent' report only moves an 'unsent' message; 'failed' moves
 * 'unsent' or 'sent'; 'delivered' also moves 'failed'. Returns the gatewayKey()s of the reports by
 * gateway id that found no message (whether or not a found one changed).
 */
async function applyReports(db: Db, batch: QueuedReport[]): Promise<Set<string>> {
  const strongest = new Map<string, QueuedReport>();
  for (const q of batch) {
    const key = q.report.messageId !== undefined ? `${q.gatewayId}:m${q.report.messageId}` : `${q.gatewayId}:g${reportGid(q.report)}`;
    const known = strongest.get(key);
    if (!known || rank[q.report.status] >= rank[known.report.status]) strongest.set(key, q);
  }
  const rows = [...strongest.values()].map(({ gatewayId, report: r }) => ({
    g: gatewayId,
    mid: r.messageId ?? null,
    gid: reportGid(r),
    status: r.status,
    at: r.at.toISOString(),
    error: r.status === 'failed' ? (r.error ?? 'delivery failed').slice(0, 200) : '',
  }));
  const reports = (list: typeof rows) =>
    sql`select * from jsonb_to_recordset(${json(list)}) as r(g int, mid bigint, gid text, status text, at timestamptz, error text)`;
  const byId = rows.filter((r) => r.mid !== null);
  const byGatewayId = rows.filter((r) => r.mid === null && r.gid !== '');
  if (byId.length) {
    await db.execute(sql`with r as (${reports(byId)}), ${updateMessages(sql`m.id = r.mid`)}
      ${smsMessageEventsSql('applied')}`);
  }
  if (!byGatewayId.length) return new Set();
  // The final select sees the table as it was before the update: a report that found no row there found none.
  const unmatched = await queryRows<{ g: number; gid: string }>(
    db,
    sql`with r as (${reports(byGatewayId)}), ${updateMessages(sql`m.gateway_message_id = r.gid`)},
      written as (${smsMessageEventsSql('applied')})
      select r.g, r.gid from r where not exists (select 1 from sms_messages m where m.sms_gateway_id = r.g and m.gateway_message_id = r.gid)`,
  );
  return new Set(unmatched.map((u) => gatewayKey(Number(u.g), u.gid)));
}

/** At most this many reports per statement; more wait for the next flush. */
const reportBatch = 2000;
/** How long a report by gateway id that found no message is tried again (its send may not be recorded yet). */
export const UNMATCHED_REPORT_RETRY_MS = 120_000;
/** How often the reports waiting for their message are tried again. */
const UNMATCHED_REPORT_EVERY_MS = 1000;

export interface SmsEventsOptions {
  /** How long an unmatched report by gateway id is retried (default UNMATCHED_REPORT_RETRY_MS). */
  unmatchedRetryMs?: number;
  /** How often it is retried (default 1 s). */
  unmatchedEveryMs?: number;
}

/**
 * Queues reports and applies them in batches: all the reports that arrive while a batch is being
 * written go together in the next one (a fast gateway reports thousands a second; one UPDATE
 * each would cost more than the sending). A report by gateway id that finds no message waits and
 * is tried again (see keepWaiting). close() writes what is queued and gives up on what waits.
 */
function reportQueue(db: Db, log: EventsLog, opts: SmsEventsOptions) {
  const retryMs = opts.unmatchedRetryMs ?? UNMATCHED_REPORT_RETRY_MS;
  const everyMs = opts.unmatchedEveryMs ?? UNMATCHED_REPORT_EVERY_MS;
  const queue: QueuedReport[] = [];
  /** Reports by gateway id that found no message yet. */
  const waiting: QueuedReport[] = [];
  const idle: (() => void)[] = [];
  let running = false;
  let closing = false;
  let retryTimer: NodeJS.Timeout | undefined;

  // The retry rule, in one place: the gateway may report before the engine has recorded the
  // send (and so the gateway's id of the message); such a report waits for it, up to retryMs.
  const keepWaiting = (q: QueuedReport, now: number) => !closing && now - q.arrivedAt < retryMs;

  const giveUp = (lost: QueuedReport[]) => {
    if (!lost.length) return;
    const ids = lost.slice(0, 10).map((q) => `${q.gatewayId}/${reportGid(q.report)} (${q.report.status})`);
    log.warn(
      `${lost.length} SMS delivery report(s) by gateway message id matched no message ${closing ? '(given up at shutdown)' : `within ${retryMs / 1000} s`}; dropped: ` +
        `gateway/id ${ids.join(', ')}${lost.length > ids.length ? ', …' : ''}`,
    );
    for (const q of lost) q.done.resolve();
  };

  const drain = async () => {
    running = true;
    while (queue.length) {
      const batch = queue.splice(0, reportBatch);
      try {
        const unmatched = await applyReports(db, batch);
        const now = Date.now();
        const lost: QueuedReport[] = [];
        for (const q of batch) {
          const found = q.report.messageId !== undefined || !unmatched.has(gatewayKey(q.gatewayId, reportGid(q.report)));
          if (found) q.done.resolve();
          else if (keepWaiting(q, now)) waiting.push(q);
          else lost.push(q);
        }
        giveUp(lost);
      } catch (err) {
        log.error(`SMS delivery reports (${batch.length}) failed: ${(err as Error).message}`);
        for (const q of batch) q.done.reject(err as Error);
      }
    }
    running = false;
    if (waiting.length && !retryTimer && !closing) {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        queue.push(...waiting.splice(0));
        start();
      }, everyMs);
    }
    for (const resolve of idle.splice(0)) resolve();
  };
  const start = () => {
    if (running || !queue.length) return;
    running = true;
    // Started on the next turn, so the reports fired in this one share the first batch.
    setImmediate(() => void drain());
  };

  return {
    report: (gatewayId: number, report: DeliveryReport) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ gatewayId, report, arrivedAt: Date.now(), done: { resolve, reject } });
        start();
      }),
    async close(): Promise<void> {
      closing = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      queue.push(...waiting.splice(0)); // one last try, then given up
      start();
      if (running) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}

/** The global DNC list that takes `ownerId`'s opt-outs: theirs named "SMS opt-out", else any global one, else a new one. */
async function optOutList(tx: Db, ownerId: number): Promise<number> {
  const [found] = await queryRows<{ id: number }>(
    tx,
    sql`select id from dnc_lists where user_id = ${ownerId} and is_global order by (name = ${OPT_OUT_LIST_NAME}) desc, id limit 1`,
  );
  if (found) return found.id;
  const [made] = await queryRows<{ id: number }>(
    tx,
    sql`insert into dnc_lists (name, user_id, is_global) values (${OPT_OUT_LIST_NAME}, ${ownerId}, true) returning id`,
  );
  return made.id;
}

/** Stores an inbound message; an opt-out bars the number for the campaign owner. */
async function applyInbound(db: Db, log: EventsLog, gatewayId: number, msg: InboundMessage): Promise<void> {
  const from = (normalizePhone(msg.from) ?? msg.from).slice(0, 21);
  const word = optOutWord(msg.text);
  await db.transaction(async (tx) => {
    await tx.execute(sql`insert into sms_inbound (sms_gateway_id, sender_number, recipient_number, content, opt_out, received_date)
      values ((select id from sms_gateways where id = ${gatewayId}), ${from}, ${msg.to.slice(0, 80)}, ${msg.text}, ${word}, ${msg.at.toISOString()}::timestamptz)`);
    // An inbound sender is in international form (carriers give the MSISDN): its key is its digits.
    const key = phoneKey(from);
    if (!word || !key) return;
    // The campaign that messaged this number: sent to it as written with or without '+', or
    // nationally (its subscriber's key, read in the owner's country, says it is the same number).
    const forms = [...new Set([from, key, `+${key}`, ...nationalFormsOf(key)])];
    const [owner] = await queryRows<{ user_id: number }>(
      tx,
      sql`select m.user_id from sms_messages m left join sms_subscribers s on s.id = m.sms_subscriber_id
          where m.sms_gateway_id = ${gatewayId} and m.recipient_number in (${sql.join(forms.map((f) => sql`${f}`), sql`, `)})
            and coalesce(s.phone_key, regexp_replace(m.recipient_number, '[^0-9]', '', 'g')) = ${key}
          order by m.id desc limit 1`,
    );
    if (!owner) {
      log.warn(`SMS opt-out from ${from} on gateway ${gatewayId}: no campaign messaged that number there; kept in sms_inbound only`);
      return;
    }
    const list = await optOutList(tx, owner.user_id);
    await tx.execute(sql`insert into dnc_contacts (dnc_id, phone_number, phone_key)
      select ${list}, ${from}, ${key} where not exists (select 1 from dnc_contacts where dnc_id = ${list} and phone_key = ${key})`);
    await appendEvents(tx, [
      { type: EventType.SmsOptOut, userId: owner.user_id, data: { phone_number: from, word, dnc_list: `/rest-api/dnc-list/${list}/` } },
    ]);
    log.info(`SMS opt-out (${word}) from ${from}: added to DNC list ${list} of user ${owner.user_id}`);
  });
}

/** SmsEvents with a close() for shutdown. */
export interface SmsEventsQueue extends SmsEvents {
  /**
   * Writes the reports queued, tries once more those waiting for their message and gives up on
   * the ones still unmatched (with the warning); resolves when nothing is left. Reports given
   * after close are still written, but an unmatched one is given up at once.
   */
  close(): Promise<void>;
}

/** The SmsEvents every SMS driver and the Kannel callback routes report to. */
export function smsEvents(db: Db, log: EventsLog, opts: SmsEventsOptions = {}): SmsEventsQueue {
  const reports = reportQueue(db, log, opts);
  return {
    // Each report's promise resolves once it is written, or given up (see the file's header).
    report: reports.report,
    async inbound(gatewayId, message) {
      try {
        await applyInbound(db, log, gatewayId, message);
      } catch (err) {
        log.error(`SMS inbound message on gateway ${gatewayId} failed: ${(err as Error).message}`);
        throw err;
      }
    },
    close: reports.close,
  };
}
