/**
 * The SMS simulator (the fake of the real SMS drivers): every message is accepted with an id,
 * then a delivery report follows after `delay_ms` of the injected clock: delivered with
 * `delivery_rate`, failed with `failure_rate`, and none at all for the rest (a report lost on
 * the way, the message stays 'sent'). The draw is seeded by (seed, message id), so a message's
 * fate depends on neither the order nor the number of messages.
 */
import { streamFor } from '../voice/random.ts';
import type { SmsDriver, SmsDriverContext, SmsSubmit, SubmitResult } from './driver.ts';
import { checks, checkSettings, type SettingsResult } from './settings.ts';

export interface SmsSimulatorSettings {
  delivery_rate: number;
  failure_rate: number;
  seed: number;
  /** Milliseconds of the clock between the send and its report (0 = at once). */
  delay_ms: number;
}

const SPECS = {
  delivery_rate: { check: checks.rate, default: 0.95 },
  failure_rate: { check: checks.rate, default: 0.05 },
  seed: { check: (v: unknown) => (Number.isSafeInteger(v) ? null : 'must be an integer.'), default: 1 },
  delay_ms: { check: checks.integer(0, 86_400_000), default: 0 },
};

export function simulatorSettings(raw: unknown): SettingsResult<SmsSimulatorSettings> {
  const result = checkSettings<SmsSimulatorSettings>('simulator', SPECS, raw);
  if (result.ok && result.value.delivery_rate + result.value.failure_rate > 1 + 1e-9) {
    return { ok: false, errors: ['delivery_rate + failure_rate must not exceed 1.'] };
  }
  return result;
}

export class SmsSimulator implements SmsDriver {
  readonly name = 'simulator';
  private readonly settings: SmsSimulatorSettings;
  private closed = false;

  constructor(
    private readonly gatewayId: number,
    settings: unknown,
    private readonly ctx: SmsDriverContext,
  ) {
    const checked = simulatorSettings(settings);
    if (!checked.ok) throw new Error(`invalid simulator settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
  }

  async send(message: SmsSubmit): Promise<SubmitResult> {
    if (this.closed) return { ok: false, error: 'driver closed', retry: true };
    const gatewayMessageId = `sim-${message.messageId}`;
    const draw = streamFor(this.settings.seed, String(message.messageId))();
    const status = draw < this.settings.delivery_rate ? 'delivered' : draw < this.settings.delivery_rate + this.settings.failure_rate ? 'failed' : undefined;
    if (status) void this.report(gatewayMessageId, message.messageId, status);
    return { ok: true, gatewayMessageId };
  }

  private async report(gatewayMessageId: string, messageId: number, status: 'delivered' | 'failed'): Promise<void> {
    // Never within send(): the engine records the send before its report can arrive.
    if (this.settings.delay_ms > 0) await this.ctx.clock.sleep(this.settings.delay_ms);
    else await new Promise((resolve) => setImmediate(resolve));
    if (this.closed) return;
    await this.ctx.events
      .report(this.gatewayId, {
        gatewayMessageId,
        messageId,
        status,
        at: this.ctx.clock.now(),
        ...(status === 'failed' ? { error: 'simulated failure' } : {}),
      })
      .catch(() => {
        // The events log their own failures; a lost report leaves the message 'sent'.
      });
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
