/**
 * A gateway's driver settings: for the simulators, the small form of the settings the README
 * documents (an empty box keeps the driver's default); for any other driver, the settings as a
 * JSON object in a textarea, checked before it is sent. Secrets read back as "********" and
 * sending that back keeps the stored value (src/resources/gateways/gateways.secrets.ts).
 */
import { Field } from './ui.tsx';

type Spec = { key: string; label: string; hint: string; kind: 'number' | 'range' | 'text' };

/** README, "Numbers and settings": the voice simulator's settings. */
const VOICE_SIMULATOR: Spec[] = [
  { key: 'answer_rate', label: 'Answer rate', hint: 'Share (0–1) of calls answered; default 0.7.', kind: 'number' },
  { key: 'busy_rate', label: 'Busy rate', hint: 'Share answered busy; default 0.1.', kind: 'number' },
  { key: 'noanswer_rate', label: 'No-answer rate', hint: 'Share that ring until the timeout; default 0.1.', kind: 'number' },
  { key: 'machine_rate', label: 'Machine rate', hint: 'Share of answered calls that are answering machines; default 0.1.', kind: 'number' },
  { key: 'ring_seconds', label: 'Ringing (seconds, min–max)', hint: 'Two numbers, e.g. 2, 8 (the default).', kind: 'range' },
  { key: 'talk_seconds', label: 'Talking (seconds, min–max)', hint: 'Two numbers, e.g. 5, 30 (the default).', kind: 'range' },
  { key: 'dtmf', label: 'Keys pressed', hint: '“random” (default): a key the section expects; else keys used in order.', kind: 'text' },
  { key: 'seed', label: 'Seed', hint: 'The same seed and call give the same call; default 1.', kind: 'number' },
  { key: 'time_scale', label: 'Time scale', hint: 'Simulated seconds per real second; default 1.', kind: 'number' },
];

/** src/drivers/sms/simulator.ts: the SMS simulator's settings. */
const SMS_SIMULATOR: Spec[] = [
  { key: 'delivery_rate', label: 'Delivery rate', hint: 'Share (0–1) of messages reported delivered; default 0.95.', kind: 'number' },
  { key: 'failure_rate', label: 'Failure rate', hint: 'Share reported failed; default 0.05. The rest get no report.', kind: 'number' },
  { key: 'delay_ms', label: 'Report delay (ms)', hint: 'Between the send and its report; default 0.', kind: 'number' },
  { key: 'seed', label: 'Seed', hint: 'The same seed and message give the same fate; default 1.', kind: 'number' },
];

export function simulatorSpecs(kind: 'voice' | 'sms'): Spec[] {
  return kind === 'voice' ? VOICE_SIMULATOR : SMS_SIMULATOR;
}

/** The settings as the form's strings (one per documented key), from a record's settings. */
export function simulatorValues(kind: 'voice' | 'sms', settings: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of simulatorSpecs(kind)) {
    const v = settings?.[s.key];
    out[s.key] = v == null ? '' : Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}

/** The form's strings → settings, or the problems found (keyed by setting). Empty boxes are left out. */
export function simulatorSettings(kind: 'voice' | 'sms', values: Record<string, string>): { settings?: Record<string, unknown>; problems: Record<string, string> } {
  const settings: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const s of simulatorSpecs(kind)) {
    const raw = (values[s.key] ?? '').trim();
    if (!raw) continue;
    if (s.kind === 'text') settings[s.key] = raw;
    else if (s.kind === 'number') {
      const n = Number(raw);
      if (Number.isFinite(n)) settings[s.key] = n;
      else problems[s.key] = 'Enter a number.';
    } else {
      const parts = raw.split(/[\s,–-]+/).filter(Boolean).map(Number);
      if (parts.length === 2 && parts.every(Number.isFinite)) settings[s.key] = parts;
      else problems[s.key] = 'Enter two numbers: the least and the most.';
    }
  }
  return Object.keys(problems).length ? { problems } : { settings, problems };
}

export function SimulatorSettings({
  kind,
  values,
  onChange,
  errors,
}: {
  kind: 'voice' | 'sms';
  values: Record<string, string>;
  onChange: (key: string, value: string) => void;
  errors: Record<string, string>;
}) {
  return (
    <div className="group-fields">
      {simulatorSpecs(kind).map((s) => (
        <Field key={s.key} label={s.label} hint={s.hint} errors={errors[s.key] ? [errors[s.key] as string] : undefined}>
          {(p) => (
            <input
              {...p}
              name={`settings.${s.key}`}
              type="text"
              inputMode={s.kind === 'text' ? 'text' : 'decimal'}
              value={values[s.key] ?? ''}
              onChange={(e) => onChange(s.key, e.target.value)}
            />
          )}
        </Field>
      ))}
    </div>
  );
}

/** JSON text → a settings object, or why not. */
export function parseSettingsJson(text: string): { settings?: Record<string, unknown>; problem?: string } {
  if (!text.trim()) return { settings: {} };
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { problem: 'The settings must be a JSON object: { "key": value, … }.' };
    return { settings: v as Record<string, unknown> };
  } catch (e) {
    return { problem: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
