/**
 * The SMS driver interface (contract §7): the SMS engine sees only this. A driver submits one
 * message and answers with the gateway's message id (or why it failed, and whether a resend may
 * succeed); delivery reports and inbound messages (opt-out replies) come back as events, either
 * from the driver's own connection (SMPP deliver_sm) or through our HTTP callback routes
 * (Kannel's dlr-url and MO URL), and both paths end in the same `SmsEvents` functions.
 * Each real driver lives next to its fake (simulator.ts).
 */
import type { Clock } from '../../clock.ts';

export interface SmsSubmit {
  /** Our sms_messages.id (Kannel and HTTP drivers put it in the report URL). */
  messageId: number;
  /** Normalised recipient number (an optional + and digits). */
  to: string;
  /** Sender number or alphanumeric name (the campaign's callerid). */
  from: string;
  /** The message text, variables already filled in. */
  text: string;
  /**
   * Asked just before the message goes out, after whatever the driver waited for first (the
   * SMPP driver's throughput pacing): false means it is no longer the engine's to send (the
   * engine fell silent meanwhile, and another took it for dead and settled the message), and
   * it is not sent. `true` at once when nothing changed. Absent: always sent.
   */
  maySend?: () => boolean | Promise<boolean>;
}

export type SubmitResult =
  | { ok: true; gatewayMessageId: string }
  /** `retry`: a temporary failure (throttled, connection down); the engine may resend later. */
  | { ok: false; error: string; retry: boolean };

/** A delivery report: 'delivered' and 'failed' are final; 'sent' means accepted by the SMSC. */
export interface DeliveryReport {
  /** The gateway's id of the message, as returned on submit. */
  gatewayMessageId?: string;
  /** Our sms_messages.id, when the report URL carries it (Kannel). */
  messageId?: number;
  status: 'sent' | 'delivered' | 'failed';
  at: Date;
  error?: string;
}

/** A message from a phone to us (an opt-out reply is one). */
export interface InboundMessage {
  from: string;
  to: string;
  text: string;
  at: Date;
}

/** Where drivers hand what the gateway tells them (implemented in src/campaign/sms-events.ts). */
export interface SmsEvents {
  report(gatewayId: number, report: DeliveryReport): Promise<void>;
  inbound(gatewayId: number, message: InboundMessage): Promise<void>;
}

/** The gateway row a driver is made from. */
export interface SmsGatewayInfo {
  id: number;
  name: string;
  driver: string;
  settings: Record<string, unknown>;
  /** The secret of this gateway's callback URLs (delivery reports, inbound messages). */
  callback_secret: string;
}

export interface SmsDriverContext {
  clock: Clock;
  events: SmsEvents;
}

export interface SmsDriver {
  readonly name: string;
  /** Submits one message; never throws for a gateway's refusal (it answers ok: false). */
  send(message: SmsSubmit): Promise<SubmitResult>;
  /** Releases connections (unbind, close sockets, timers). */
  close(): Promise<void>;
}
